"""Browser test: the chart of `dicehost odds --sweep ... --chart FILE.svg` opens in
headless Chromium as it is. It parses as XML, the browser draws its SVG at its size with
a line per seat, and a screenshot goes to .build/test-output/sweep-chart.png.

Run by `make test-browser`:  .build-venv/bin/python tests/browser/sweep_chart.py
"""
import os
import subprocess
import sys
import tempfile
import xml.etree.ElementTree as ET

from selenium.webdriver.common.by import By

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from snap_two_players import DICEHOST, ROOT, browser  # noqa: E402

SVG = "{http://www.w3.org/2000/svg}"


def main():
    folder = tempfile.mkdtemp(prefix="dicehost-chart-")
    chart = os.path.join(folder, "pig.svg")
    subprocess.run([DICEHOST, "odds", os.path.join(ROOT, "examples", "rules", "pig.lua"), "--sweep", "target=6..16:2",
                    "--chart", chart, "--quiet"], check=True, stdout=subprocess.DEVNULL)
    root = ET.parse(chart).getroot()
    assert root.tag == SVG + "svg", root.tag
    lines = root.findall(SVG + "polyline")
    assert len(lines) == 2, "a line per seat: %d" % len(lines)
    labels = [t.text for t in root.iter(SVG + "text")]
    assert "target" in labels and "win probability" in labels, labels
    driver = browser()
    try:
        driver.get("file://" + chart)
        svg = driver.find_element(By.TAG_NAME, "svg")
        size = svg.size
        assert size["width"] >= 600 and size["height"] >= 380, size
        drawn = driver.execute_script("return document.querySelectorAll('polyline').length")
        assert drawn == 2, drawn
        length = driver.execute_script("return document.querySelector('polyline').getTotalLength()")
        assert length > 100, length
        out = os.path.join(ROOT, ".build", "test-output")
        os.makedirs(out, exist_ok=True)
        shot = os.path.join(out, "sweep-chart.png")
        driver.save_screenshot(shot)
        assert os.path.getsize(shot) > 1000
        print("sweep chart: parsed, drawn in Chromium, screenshot " + os.path.relpath(shot, ROOT))
    finally:
        driver.quit()


if __name__ == "__main__":
    main()
