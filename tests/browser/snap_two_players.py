"""Browser test: two Chromium windows play a whole game of Snap on `dicehost serve`.

Ann creates a room in the lobby, Bob joins it from the invitation link. Bob's
out-of-turn flip and roll are refused on his screen; Bob reloads his page and is back
in his seat; then Bob calls snap until he has no cards left, and both windows show
that Ann won. Names and rule text are shown as text (Bob's name holds markup).

Run by `make test` (scripts/ensure-browser.sh installs chromium, chromium-driver and
Selenium in .build-venv):  .build-venv/bin/python tests/browser/snap_two_players.py
"""
import os
import re
import socket
import subprocess
import sys
import tempfile
import threading
import time

from selenium import webdriver
from selenium.common.exceptions import TimeoutException
from selenium.webdriver.chrome.service import Service
from selenium.webdriver.common.by import By
from selenium.webdriver.support import expected_conditions as EC
from selenium.webdriver.support.ui import Select, WebDriverWait

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
DICEHOST = os.environ.get("DICEHOST", os.path.join(ROOT, ".build", "debug", "dicehost"))
BOB = "<b>Bob</b>"  # markup in a name must show as text


def start_server(rules=None, attempts=2):
    """Starts `dicehost serve` on a free port and waits until it takes connections.

    The server's output is read all along (a full pipe would stop it) and kept: when a
    test fails, or the server is gone before it takes a connection, its exit status and
    last lines are printed with the error. A server gone at once is started once more
    (with a warning that says why), so one lost start does not fail the whole suite."""
    # Rooms in memory: a browser test starts from no rooms and leaves no store behind.
    server = subprocess.Popen([DICEHOST, "serve", rules or os.path.join(ROOT, "rules"), "--port", "0", "--store", "none"],
                              stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
    line = server.stdout.readline()
    match = re.search(r"http://[0-9.]+:(\d+)/", line)
    if not match:
        server.kill()
        sys.exit("the server did not start: " + line + server.stdout.read())
    server.output = [line]
    threading.Thread(target=lambda: server.output.extend(server.stdout), daemon=True).start()
    port = int(match.group(1))
    deadline = time.time() + 15
    while True:
        try:
            socket.create_connection(("127.0.0.1", port), timeout=2).close()
            break
        except OSError as error:
            if server.poll() is not None or time.time() > deadline:
                server.kill()
                server.wait()
                why = "the server on port %d took no connection (%s; exit status %s):\n%s" % (
                    port, error, server.returncode, "".join(server.output[-40:]))
                if attempts > 1:
                    print("warning: " + why + "\nstarting it again", file=sys.stderr)
                    return start_server(rules, attempts - 1)
                sys.exit(why)
            time.sleep(0.1)
    _report_server_on_failure(server)
    return server, "http://127.0.0.1:%d/" % port


def _report_server_on_failure(server):
    """On an uncaught error, says whether the test's server was still running, and its last lines."""
    previous = sys.excepthook

    def hook(kind, value, traceback):
        status = server.poll()
        state = "still running" if status is None else "exited with status %s" % status
        sys.stderr.write("the test's server (pid %d) %s; its last lines:\n%s\n"
                         % (server.pid, state, "".join(getattr(server, "output", [])[-40:])))
        previous(kind, value, traceback)
    sys.excepthook = hook


def browser():
    options = webdriver.ChromeOptions()
    for flag in ("--headless=new", "--no-sandbox", "--disable-dev-shm-usage", "--disable-gpu",
                 "--window-size=1100,900", "--user-data-dir=" + tempfile.mkdtemp(prefix="dicehost-chrome-")):
        options.add_argument(flag)
    # The DevTools network events (WebSocket frames) for the Liar's Dice test's checks.
    options.set_capability("goog:loggingPrefs", {"performance": "ALL", "browser": "ALL"})
    binary = os.environ.get("CHROMIUM", "/usr/bin/chromium")
    if os.path.exists(binary):
        options.binary_location = binary
    driver_path = os.environ.get("CHROMEDRIVER", "/usr/bin/chromedriver")
    return webdriver.Chrome(service=Service(driver_path), options=options)


def wait(driver, condition, what, seconds=15):
    try:
        return WebDriverWait(driver, seconds, poll_frequency=0.05).until(condition)
    except TimeoutException:
        raise AssertionError("timed out waiting for " + what + "\npage: " + driver.find_element(By.TAG_NAME, "body").text)


def text_of(driver, element_id):
    return driver.find_element(By.ID, element_id).text


def shows(driver, element_id, words):
    return lambda d: words in d.find_element(By.ID, element_id).text


def log_count(driver):
    return len(driver.find_elements(By.CSS_SELECTOR, "#log li[data-index]"))


def game_log(driver):
    """The game's events as shown (not the refusals the page adds for its own player)."""
    return [li.text for li in driver.find_elements(By.CSS_SELECTOR, "#log li[data-index]")]


def screenshot(driver, name):
    """With SCREENSHOTS=DIR, saves the window as DIR/NAME.png (to look at the page)."""
    folder = os.environ.get("SCREENSHOTS")
    if folder:
        driver.save_screenshot(os.path.join(folder, name + ".png"))


def click(driver, selector):
    driver.find_element(By.CSS_SELECTOR, selector).click()


def set_param(driver, key, value):
    """A param in the lobby, whatever its control (a box, a slider, a menu, a checkbox)."""
    control = wait(driver, lambda d: d.find_element(By.CSS_SELECTOR, "[data-param=%s]" % key), "the %s param" % key)
    driver.execute_script("""
        const [e, value] = arguments;
        if (e.type === 'checkbox') e.checked = value === 'true'; else e.value = value;
        e.dispatchEvent(new Event('input'));""", control, value)
    got = driver.execute_script("return arguments[0].type === 'checkbox' ? String(arguments[0].checked) : arguments[0].value", control)
    assert got == value, "the %s param took %r, not %r" % (key, got, value)


def main():
    started = time.time()
    server, url = start_server()
    ann = bob = None
    try:
        ann, bob = browser(), browser()

        # Ann creates a Snap room for two, with the auto-flip timer far away.
        ann.get(url)
        wait(ann, EC.visibility_of_element_located((By.ID, "lobby")), "Ann's lobby")
        wait(ann, lambda d: len(d.find_elements(By.CSS_SELECTOR, "#create-rules option")) > 0, "the rules list")
        ann.find_element(By.ID, "name").send_keys("Ann")
        Select(ann.find_element(By.ID, "create-rules")).select_by_value("snap.lua")
        seats = ann.find_element(By.ID, "create-seats")
        seats.clear()
        seats.send_keys("2")
        set_param(ann, "flip_ms", "600000")
        click(ann, "#create")
        wait(ann, EC.visibility_of_element_located((By.ID, "table")), "Ann's table")
        room = re.search(r"room=([A-Za-z0-9_-]+)", ann.current_url).group(1)
        assert "Waiting for players: 1 of 2" in text_of(ann, "phase"), text_of(ann, "phase")

        # Bob opens the invitation link and joins.
        bob.get(url + "?room=" + room)
        wait(bob, lambda d: d.find_elements(By.CSS_SELECTOR, '#rooms li[data-room="%s"] button.join' % room), "the room in Bob's lobby")
        bob.find_element(By.ID, "name").send_keys(BOB)
        click(bob, '#rooms li[data-room="%s"] button.join' % room)
        wait(bob, EC.visibility_of_element_located((By.ID, "table")), "Bob's table")
        wait(ann, shows(ann, "turn", "Your turn"), "Ann's turn on Ann's screen")
        wait(bob, shows(bob, "turn", "Ann's turn"), "Ann's turn on Bob's screen")
        assert BOB in text_of(ann, "players"), "Bob's name is shown as typed"
        assert not ann.find_elements(By.CSS_SELECTOR, "#players b"), "a name became markup"
        assert "Your card turns itself in" in text_of(ann, "timer"), text_of(ann, "timer")
        assert "Ann's card turns itself in" in text_of(bob, "timer"), text_of(bob, "timer")
        assert not ann.find_elements(By.CSS_SELECTOR, "#leds .led"), "the die's LED faces outside designer mode"
        assert not ann.find_elements(By.CSS_SELECTOR, 'button[data-action="show"]'), "a designer action as a player's button"

        # Out of turn: Bob's flip button is disabled (his state lists no flip for him);
        # a flip sent anyway is refused by the server, on Bob's screen; nothing happens on Ann's.
        before = log_count(ann)
        assert not bob.find_element(By.CSS_SELECTOR, 'button[data-action="flip"]').is_enabled(), "Bob may flip on Ann's turn"
        assert bob.find_element(By.CSS_SELECTOR, 'button[data-action="snap"]').is_enabled(), "snap is anyone's, any time"
        bob.execute_script("act('flip', [])")
        wait(bob, shows(bob, "notice", "it is Ann's turn, not yours (flip waits for your turn)"), "the refused flip on Bob's screen")
        assert bob.find_element(By.ID, "notice").is_displayed()
        # Snap has no dice: no dice drawn, no Roll button; the stacks are face down (counts).
        assert not bob.find_element(By.ID, "roll").is_displayed(), "a Roll button in a game without dice"
        assert not bob.find_element(By.ID, "dice").is_displayed()
        stacks = bob.find_elements(By.CSS_SELECTOR, '#players .row.stacks')
        assert len(stacks) == 2 and "26 face down" in stacks[0].text, [s.text for s in stacks]
        assert not bob.find_elements(By.CSS_SELECTOR, "#drawn-table .card:not(.back)"), "a face-down card is shown"
        assert not bob.find_element(By.ID, "die-menu").is_displayed(), "a Pixels menu in a game without dice"
        assert not bob.find_element(By.ID, "raw-details").get_attribute("open"), "raw view data is shown by default"
        screenshot(bob, "bob-refused")
        time.sleep(0.3)
        assert log_count(ann) == before, "a refused input changed the game"

        # Ann flips: both screens show it and it is Bob's turn.
        click(ann, 'button[data-action="flip"]')
        wait(bob, shows(bob, "log", "Ann turns over"), "Ann's card on Bob's screen")
        wait(bob, shows(bob, "turn", "Your turn"), "Bob's turn")
        wait(ann, lambda d: len(game_log(d)) == len(game_log(bob)), "the same log in both windows")

        # Bob reloads the page: back in the same seat, with the game as it was.
        bob.refresh()
        wait(bob, shows(bob, "notice", "you have your seat again"), "Bob's seat after the reload")
        wait(bob, shows(bob, "you", "You are " + BOB), "Bob's name after the reload")
        wait(bob, shows(bob, "turn", "Your turn"), "Bob's turn after the reload")
        wait(bob, shows(bob, "log", "Ann turns over"), "the log after the reload")
        assert "offline" not in text_of(ann, "players")
        click(bob, 'button[data-action="flip"]')
        wait(ann, shows(ann, "log", "turns over"), "Bob's flip")
        wait(ann, lambda d: text_of(d, "log").count("turns over") == 2, "Bob's flip after the reload on Ann's screen")

        screenshot(bob, "bob-after-reload")
        screenshot(ann, "ann-lobby-after")

        # Bob calls snap until he is out of cards: a whole game, to its end.
        for _ in range(80):
            if bob.find_element(By.ID, "banner").is_displayed():
                break
            count = log_count(bob)
            click(bob, 'button[data-action="snap"]')
            wait(bob, lambda d: log_count(d) > count or d.find_element(By.ID, "banner").is_displayed(), "Bob's snap")
        wait(ann, shows(ann, "banner", "You won"), "the result on Ann's screen")
        wait(bob, shows(bob, "banner", "Ann won"), "the result on Bob's screen")
        assert "You won!" in text_of(ann, "log") and "Ann won!" in text_of(bob, "log")
        screenshot(ann, "ann-game-over")
        assert ann.find_element(By.ID, "restart").is_displayed()
        assert not bob.find_element(By.CSS_SELECTOR, 'button[data-action="snap"]').is_enabled()
        print("browser test: a whole game of Snap in two windows, reload and refusals: ok (%.1f s)" % (time.time() - started))
    finally:
        for driver in (ann, bob):
            if driver:
                driver.quit()
        server.terminate()
        try:
            server.wait(timeout=5)
        except subprocess.TimeoutExpired:
            server.kill()


if __name__ == "__main__":
    main()
