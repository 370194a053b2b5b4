"""axe-core in the page (axe-selenium-python): the violations a player would meet.

    from accessibility import serious_violations
    assert not serious_violations(driver), ...

Only serious and critical ones fail a test; each is named with its rule, help text and
the first elements it was found on, so a failure says what to fix.
"""
from axe_selenium_python import Axe


def serious_violations(driver):
    axe = Axe(driver)
    axe.inject()
    results = axe.run(options={"resultTypes": ["violations"]})
    found = []
    for v in results.get("violations", []):
        if v.get("impact") not in ("serious", "critical"):
            continue
        where = []
        for node in v.get("nodes", [])[:3]:
            where.append(" ".join(node.get("target", [])) + ": " + (node.get("failureSummary") or "").replace("\n", " ")[:200])
        found.append("%s (%s): %s — %s" % (v["id"], v["impact"], v.get("help", ""), " | ".join(where)))
    return found
