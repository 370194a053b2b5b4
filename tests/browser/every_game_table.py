"""Browser test: every shipped game at a desktop's 1280x900 and a phone's 390x844.

For each game in rules/ two windows (one for a one-player game) create and join a room
in the lobby and play it by clicking the page's own controls, with params that make a
game short. In the middle of the game and at its end, at both sizes, each window must:
scroll no wider than the screen; show no host internals in its text (timer handles,
seat numbers, raw flags, field names such as dice_in_play); have no arguments box (but
where an action's moves cannot be listed); have every control of a
move that is not its own disabled; and keep its console free of errors. At the end each
window shows a result banner in its own words. Then Race to Space without its table hook:
the generic table, drawn from the view, shows no host internals either (its timer
handles, seat numbers, flags). Screenshots go to $SCREENSHOTS (default
/work/screens when it exists) as GAME-WIDTH-STAGE-PLAYER.png.

Run by `make test-browser`:  .build-venv/bin/python tests/browser/every_game_table.py [GAME...]
"""
import os
import re
import shutil
import subprocess
import sys
import tempfile
import time

from selenium.webdriver.common.by import By
from selenium.webdriver.support import expected_conditions as EC
from selenium.webdriver.support.ui import Select

from accessibility import serious_violations
from snap_two_players import ROOT, browser, click, set_param, start_server, text_of, wait

SIZES = [(1280, 900, False), (390, 844, True)]
# Text a player would not call the game: the REPL's and the host's words.
INTERNALS = [r"\bid[ =]\d", r"=false", r"=true", r"\bseat[ =:]+\d", r"dice_in_play", r"\btimer\b",
             r"\bnil\b", r"\{[a-z_]+=", r"\blast_roll\b", r"\beliminated\b", r"pulse", r"timeout"]

# Per game: the seats, params for a short game, and how a window plays when it is its
# move (a list of selectors tried in order; the first enabled one is clicked).
GAMES = {
    "craps": (1, {"rounds": "3"}, ["#roll"]),
    "race": (2, {"target": "8"}, ["#roll"]),
    "race-doubles": (2, {"target": "8"}, ["#roll"]),
    "liars-dice": (2, {"start_dice": "1"}, ["#roll", 'button.move[data-action="liar"]', '.picker[data-action="bid"] button.move']),
    "mia": (2, {"lives": "1"}, ["#roll", 'button.move[data-action="call"]', '.choices[data-action="announce"] button.choice']),
    "snap": (2, {"flip_ms": "600000"}, ['button.move[data-action="flip"]']),
    "labyrinth": (1, {}, []),
}
# Controls only the mover may use (anytime actions - snap, craps' ante - are anyone's).
TURN_CONTROLS = '#roll, #actions [data-action="bid"] button.move, #actions button[data-action="liar"], ' \
    '#actions [data-action="announce"] button, #actions button[data-action="believe"], ' \
    '#actions button[data-action="call"], #actions button[data-action="flip"]'


def screens_folder():
    folder = os.environ.get("SCREENSHOTS") or ("/work/screens" if os.path.isdir("/work/screens") else "")
    return folder


def stop(server):
    """Ends a server this test started (a loaded machine may take more than a moment)."""
    server.terminate()
    try:
        server.wait(timeout=15)
    except subprocess.TimeoutExpired:
        server.kill()
        server.wait(timeout=5)


def set_size(driver, width, height, mobile):
    driver.execute_cdp_cmd("Emulation.setDeviceMetricsOverride",
                           {"width": width, "height": height, "deviceScaleFactor": 1, "mobile": mobile})


def console_errors(driver):
    return [e["message"] for e in driver.get_log("browser") if e["level"] == "SEVERE"]


# Games with an action whose moves cannot be listed (Labyrinth's steer X Y): a text box.
FREE_TEXT = {"labyrinth"}


def check_page(driver, who, where, mover, free_text=False):
    """The checks every window passes, at its current size."""
    sizes = driver.execute_script(
        "return [document.documentElement.scrollWidth, document.body.scrollWidth, window.innerWidth]")
    assert max(sizes[0], sizes[1]) <= sizes[2], "%s %s: the page is %d px wide in a %d px window" % (who, where, max(sizes[0], sizes[1]), sizes[2])
    wide = driver.execute_script("""
        const w = window.innerWidth;
        return Array.from(document.querySelectorAll('#table *')).filter((e) => {
          const r = e.getBoundingClientRect();
          return r.width > 0 && r.right > w + 1 && !e.closest('.wide');
        }).slice(0, 3).map((e) => e.tagName + '#' + e.id + '.' + e.className + ' ' + Math.round(e.getBoundingClientRect().right));""")
    assert not wide, "%s %s: wider than the window: %r" % (who, where, wide)
    text = driver.find_element(By.TAG_NAME, "body").text
    for pattern in INTERNALS:
        found = re.search(pattern, text)
        assert not found, "%s %s: host internals %r in the page: ...%s..." % (
            who, where, found.group(0), text[max(0, found.start() - 60):found.end() + 60])
    if not mover:
        enabled = driver.execute_script(
            "return Array.from(document.querySelectorAll(arguments[0])).filter((b) => !b.disabled && b.offsetParent !== null).map((b) => b.textContent)",
            TURN_CONTROLS)
        assert not enabled, "%s %s: off-turn controls enabled: %r" % (who, where, enabled)
    if not free_text:
        assert not driver.find_element(By.ID, "action-args").is_displayed(), "%s %s: an arguments box" % (who, where)
    errors = console_errors(driver)
    assert not errors, "%s %s: console errors: %r" % (who, where, errors)
    violations = serious_violations(driver)
    assert not violations, "%s %s: axe-core finds serious or critical violations:\n  %s" % (who, where, "\n  ".join(violations))


def check_everywhere(windows, game, stage, mover_name, folder):
    for width, height, mobile in SIZES:
        for name, driver in windows:
            set_size(driver, width, height, mobile)
        time.sleep(0.15)
        for name, driver in windows:
            check_page(driver, name, "%s %s at %d px" % (game, stage, width), name == mover_name, game in FREE_TEXT)
            if folder:
                driver.execute_script("window.scrollTo(0, 0)")
                driver.save_screenshot(os.path.join(folder, "%s-%d-%s-%s.png" % (game, width, stage, name.lower())))


def create_room(driver, url, game, seats, params):
    driver.get(url)
    wait(driver, lambda d: d.find_elements(By.CSS_SELECTOR, '#create-rules option[value="%s.lua"]' % game), "the rules list")
    name = driver.find_element(By.ID, "name")
    name.clear()
    name.send_keys("Ann")
    Select(driver.find_element(By.ID, "create-rules")).select_by_value(game + ".lua")
    field = driver.find_element(By.ID, "create-seats")
    if field.is_displayed():
        field.clear()
        field.send_keys(str(seats))
    for key, value in params.items():
        set_param(driver, key, value)
    click(driver, "#create")
    wait(driver, EC.visibility_of_element_located((By.ID, "table")), "Ann's table")
    return re.search(r"room=([A-Za-z0-9_-]+)", driver.current_url).group(1)


def join_room(driver, url, room):
    driver.get(url + "?room=" + room)
    wait(driver, lambda d: d.find_elements(By.CSS_SELECTOR, '#rooms li[data-room="%s"] button.join' % room), "the room in Bob's lobby")
    name = driver.find_element(By.ID, "name")
    name.clear()
    name.send_keys("Bob")
    click(driver, '#rooms li[data-room="%s"] button.join' % room)
    wait(driver, EC.visibility_of_element_located((By.ID, "table")), "Bob's table")


def mover(windows):
    """The window whose move it is: its controls say so (an enabled turn control)."""
    for name, driver in windows:
        if driver.execute_script(
                "return Array.from(document.querySelectorAll(arguments[0])).some((b) => !b.disabled && b.offsetParent !== null)",
                TURN_CONTROLS):
            return name, driver
    return None, None


def over(driver):
    return driver.find_element(By.ID, "banner").is_displayed()


def play_one_move(windows, plays):
    name, driver = mover(windows)
    if driver is None:
        return False
    count = len(driver.find_elements(By.CSS_SELECTOR, "#log li[data-index]"))
    for selector in plays:
        buttons = [b for b in driver.find_elements(By.CSS_SELECTOR, selector) if b.is_displayed() and b.is_enabled()]
        if buttons:
            buttons[0].click()
            wait(driver, lambda d: len(d.find_elements(By.CSS_SELECTOR, "#log li[data-index]")) > count or over(d),
                 "%s's move (%s) to be taken" % (name, selector), seconds=5)
            return True
    return False


def play(game, url, drivers, folder):
    seats, params, plays = GAMES[game]
    ann, bob = drivers
    windows = [("Ann", ann)] + ([("Bob", bob)] if seats == 2 else [])
    for _, driver in windows:
        set_size(driver, 1280, 900, False)
        driver.get_log("browser")  # what earlier games left
    room = create_room(ann, url, game, seats, params)
    if seats == 2:
        join_room(bob, url, room)
    wait(ann, lambda d: d.find_element(By.ID, "turn").text or over(d) or game == "labyrinth", "the game to start")
    time.sleep(0.2)
    # Snap's off-turn window must wait for a snap that is anyone's: Bob calls it wrongly
    # until he is out of cards.
    for step in range(200):
        if over(ann):
            break
        if step == 2:
            check_everywhere(windows, game, "playing", mover(windows)[0], folder)
        if game == "snap" and step >= 1:
            count = len(bob.find_elements(By.CSS_SELECTOR, "#log li[data-index]"))
            click(bob, 'button.move[data-action="snap"]')
            wait(bob, lambda d: len(d.find_elements(By.CSS_SELECTOR, "#log li[data-index]")) > count or over(d), "Bob's snap")
            continue
        if not play_one_move(windows, plays):
            break
    if game == "labyrinth":
        # The ball moves by a die's tilt: its table mid-game is what is checked here.
        check_everywhere(windows, game, "playing", "Ann", folder)
        return
    for name, driver in windows:
        wait(driver, over, "%s's result banner in %s" % (name, game))
    banners = {name: text_of(driver, "banner-text") for name, driver in windows}
    for name, text in banners.items():
        assert text, "%s %s: an empty banner" % (name, game)
    if seats == 2:
        winners = [name for name, text in banners.items() if text.startswith("You")]
        assert len(winners) == 1, "%s: banners %r" % (game, banners)
        loser = "Bob" if winners[0] == "Ann" else "Ann"
        assert winners[0] in banners[loser], "%s: %s's banner does not name the winner: %r" % (game, loser, banners)
    else:
        assert re.match(r"You (finish|won)", banners["Ann"]), banners
    assert ann.find_element(By.ID, "restart").is_displayed(), "no Play again"
    check_everywhere(windows, game, "over", None, folder)
    print("  %s: %r" % (game, banners))


def generic_table(drivers, folder):
    """Race to Space with its table hook taken out: the page draws the view itself."""
    rules = tempfile.mkdtemp(prefix="dicehost-generic-")
    with open(os.path.join(ROOT, "rules", "race.lua"), encoding="utf-8") as f:
        source = f.read()
    start = source.index("function race.table(")
    end = source.index("\nend\n", start) + len("\nend\n")
    with open(os.path.join(rules, "race.lua"), "w", encoding="utf-8") as f:
        f.write(source[:start] + source[end:])
    server, url = start_server(rules)
    try:
        ann, bob = drivers
        for driver in drivers:
            set_size(driver, 1280, 900, False)
            driver.get_log("browser")
        room = create_room(ann, url, "race", 2, {"target": "30"})
        join_room(bob, url, room)
        wait(ann, lambda d: "Your turn" in text_of(d, "turn"), "Ann's turn")
        windows = [("Ann", ann), ("Bob", bob)]
        for _ in range(3):
            play_one_move(windows, ["#roll"])
        assert not ann.find_element(By.ID, "drawn-table").text, "a table without a table hook"
        assert ann.find_element(By.ID, "scoreboard").is_displayed(), "no scoreboard of the view"
        check_everywhere(windows, "generic-race", "playing", mover(windows)[0], folder)
    finally:
        stop(server)
        shutil.rmtree(rules, ignore_errors=True)


def main():
    started = time.time()
    games = sys.argv[1:] or list(GAMES)
    folder = screens_folder()
    server, url = start_server()
    drivers = []
    try:
        drivers = [browser(), browser()]
        for game in games:
            play(game, url, drivers, folder)
        if not sys.argv[1:]:
            generic_table(drivers, folder)
        # The lobby lists no finished room.
        drivers[0].get(url)
        wait(drivers[0], EC.visibility_of_element_located((By.ID, "lobby")), "the lobby")
        time.sleep(0.3)
        listed = text_of(drivers[0], "rooms")
        assert "playing" not in listed or "labyrinth" in listed.lower(), listed
        for width, height, mobile in SIZES:
            set_size(drivers[0], width, height, mobile)
            time.sleep(0.1)
            check_page(drivers[0], "lobby", "at %d px" % width, True)
            if folder:
                drivers[0].save_screenshot(os.path.join(folder, "lobby-%d.png" % width))
        print("browser test: every shipped game at 1280 and 390 px: ok (%.1f s)" % (time.time() - started))
    finally:
        for driver in drivers:
            driver.quit()
        stop(server)


if __name__ == "__main__":
    main()
