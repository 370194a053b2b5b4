"""Browser test: three Chromium windows play Liar's Dice to the end on `dicehost serve`.

Ann creates a room for three (two dice each, so the game is short); Bob and Cy join
from the invitation link. Each window plays through the table's controls: Roll when it
is its turn to roll, a bid of one 2 when there is none, then one raise, then "liar". Bids
go through the bid picker (a quantity, a face drawn as a die, one "bid" button; the page
has no free-text box for them): at each raise the picker offers no quantity below the
standing bid and, with its quantity, no face at or below it; at each move the other
windows' bid and liar buttons are disabled. The picker is screenshotted at 1280x900 and
390x844. Every WebSocket frame
each window received is captured (Chrome DevTools Protocol network events from the
performance log) and checked: before a reveal no frame holds another seat's dice - no
roll values, no cup drawn as dice, no message addressed to another seat. Screenshots of
each window (its own cup face up, the others' face down) go to SCREENSHOTS or
.build/browser-test-output.

Run by `make test-browser`:  .build-venv/bin/python tests/browser/liars_dice_three_players.py
"""
import json
import os
import re
import sys
import time

from selenium.webdriver.common.by import By
from selenium.webdriver.support import expected_conditions as EC
from selenium.webdriver.support.ui import Select

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from snap_two_players import ROOT, browser, click, set_param, start_server, text_of, wait  # noqa: E402

OUTPUT = os.environ.get("SCREENSHOTS") or os.path.join(ROOT, ".build", "browser-test-output")
NAMES = ("Ann", "Bob", "Cy")


def snap(driver, name):
    os.makedirs(OUTPUT, exist_ok=True)
    driver.save_screenshot(os.path.join(OUTPUT, name + ".png"))


def frames(driver):
    """The WebSocket frames the window received since the last call, as parsed JSON."""
    out = []
    for entry in driver.get_log("performance"):
        message = json.loads(entry["message"])["message"]
        if message.get("method") == "Network.webSocketFrameReceived":
            payload = message["params"]["response"]["payloadData"]
            try:
                out.append(json.loads(payload))
            except ValueError:
                pass
    return out


def check_frames(me, received):
    """Fails if a frame, before the reveal of a cup, holds that cup's dice for `me`.

    A cup counts as revealed from a `reveal` event of its player until that player rolls
    again (a new round). Returns the number of frames checked."""
    revealed = set()
    for n, frame in enumerate(received):
        where = "%s's frame %d (%s)" % (me, n, frame.get("type"))
        for event in frame.get("events") or []:
            player = event.get("player")
            audience = event.get("to")
            if audience is not None:
                assert me in audience, "%s holds an event for %s: %r" % (where, audience, event)
            if event.get("type") == "reveal":
                revealed.add(player)
            if event.get("type") == "roll" and player != me:
                assert "values" not in event and event.get("hidden"), "%s holds %s's roll: %r" % (where, player, event)
                revealed.discard(player)
        state = frame.get("state") or {}
        last = state.get("lastRoll") or {}
        if last.get("player") not in (None, me):
            assert "values" not in last, "%s holds %s's last roll: %r" % (where, last.get("player"), last)
        view = state.get("view") or {}
        for p in view.get("players") or []:
            cup = p.get("cup")
            if p.get("name") != me and isinstance(cup, dict) and cup.get("kind") == "roll":
                assert p["name"] in revealed, "%s shows %s's cup before a reveal: %r" % (where, p["name"], cup)
        assert "summary" not in state, "%s holds the designer's summary of every table" % where
    return len(received)


BID = '#actions .picker[data-action="bid"]'


SIZES = ((1280, 900, "desktop"), (390, 844, "phone"))


def pick_bid(driver, quantity, face, shots=None):
    """Bids through the picker: the quantity from its list, the face as a die, the button
    (screenshots of the picker first, at each of SIZES, when `shots` names them)."""
    wait(driver, lambda d: d.find_elements(By.CSS_SELECTOR, BID), "the bid picker")
    Select(driver.find_element(By.CSS_SELECTOR, BID + ' select[data-argument="1"]')).select_by_visible_text(str(quantity))
    click(driver, BID + ' button.face[data-value="%d"]' % face)
    chosen = driver.find_elements(By.CSS_SELECTOR, BID + " button.face.chosen")
    assert [b.get_attribute("data-value") for b in chosen] == [str(face)], "face %d not chosen" % face
    if shots:
        for width, height, label in SIZES:
            sized_snap(driver, shots % label, width, height)
    click(driver, BID + ' button[data-action="bid"]')


def quantities(driver):
    """The quantities the picker offers (enabled options)."""
    options = driver.find_elements(By.CSS_SELECTOR, BID + ' select[data-argument="1"] option')
    return [int(o.text) for o in options if o.is_enabled()]


OFF_TURN = """
const buttons = (a) => Array.from(document.querySelectorAll('#actions button[data-action="' + a + '"]'));
const args = document.getElementById("action-args");
return ["bid", "liar"].every((a) => buttons(a).length > 0 && buttons(a).every((b) => b.disabled))
  && !document.querySelector('#actions .picker') && args.offsetParent === null;
"""


def check_off_turn(windows, mover):
    """Every window but the mover's has its bid and liar buttons disabled, no picker and
    no free-text box (its state may arrive a moment after the mover's)."""
    for name, driver in windows.items():
        if name != mover:
            wait(driver, lambda d: d.execute_script(OFF_TURN), "%s's bid and liar buttons disabled off-turn" % name, seconds=5)


def sized_snap(driver, name, width, height):
    """A screenshot with the page laid out at width x height CSS pixels (a phone: mobile)."""
    driver.execute_cdp_cmd("Emulation.setDeviceMetricsOverride",
                           {"width": width, "height": height, "deviceScaleFactor": 1, "mobile": width < 600})
    try:
        snap(driver, name)
    finally:
        driver.execute_cdp_cmd("Emulation.clearDeviceMetricsOverride", {})


def field(driver, name):
    """A field of the seat's view, as the page received it ("" when absent)."""
    value = driver.execute_script("return lastState && lastState.view ? lastState.view[arguments[0]] : null", name)
    return "" if value is None else value


def over(driver):
    """The result banner is up."""
    return driver.find_element(By.ID, "banner").is_displayed()


def log_count(driver):
    return len(driver.find_elements(By.CSS_SELECTOR, "#log li[data-index]"))


def main():
    started = time.time()
    server, url = start_server()
    windows = {}
    received = {name: [] for name in NAMES}
    try:
        for name in NAMES:
            windows[name] = browser()
        ann, bob, cy = (windows[n] for n in NAMES)

        ann.get(url)
        wait(ann, lambda d: len(d.find_elements(By.CSS_SELECTOR, "#create-rules option")) > 0, "the rules list")
        ann.find_element(By.ID, "name").send_keys("Ann")
        Select(ann.find_element(By.ID, "create-rules")).select_by_value("liars-dice.lua")
        seats = ann.find_element(By.ID, "create-seats")
        seats.clear()
        seats.send_keys("3")
        set_param(ann, "start_dice", "2")
        click(ann, "#create")
        wait(ann, EC.visibility_of_element_located((By.ID, "table")), "Ann's table")
        room = re.search(r"room=([A-Za-z0-9_-]+)", ann.current_url).group(1)
        for name, driver in (("Bob", bob), ("Cy", cy)):
            driver.get(url + "?room=" + room)
            wait(driver, lambda d: d.find_elements(By.CSS_SELECTOR, '#rooms li[data-room="%s"] button.join' % room), "the room in %s's lobby" % name)
            driver.find_element(By.ID, "name").send_keys(name)
            click(driver, '#rooms li[data-room="%s"] button.join' % room)
            wait(driver, EC.visibility_of_element_located((By.ID, "table")), "%s's table" % name)
        wait(ann, lambda d: "Your turn" in text_of(d, "turn"), "Ann's first turn")

        shot_taken = False
        picker_shot_taken = False
        call_checked = False
        raised = False
        illegal_checked = 0
        moves = 0
        while moves < 120:
            if over(ann):
                break
            mover = None
            for name in NAMES:
                if "Your turn" in text_of(windows[name], "turn"):
                    mover = name
            if mover is None:
                time.sleep(0.05)
                continue
            driver = windows[mover]
            phase = field(driver, "phase")
            count = log_count(ann)
            called = False
            if "rolling" in phase:
                click(driver, "#roll")
            elif not field(driver, "bid"):
                if not shot_taken:
                    # Mid-round: each window shows its own cup, the others' face down.
                    for name in NAMES:
                        snap(windows[name], "liars-dice-%s-bidding" % name.lower())
                        # Each player's cup at their seat.
                        cups = [windows[name].find_element(By.CSS_SELECTOR, '#players li[data-name="%s"]' % n) for n in NAMES]
                        faces = [len(c.find_elements(By.CSS_SELECTOR, ".die:not(.back)")) for c in cups]
                        backs = [len(c.find_elements(By.CSS_SELECTOR, ".die.back")) for c in cups]
                        me = NAMES.index(name)
                        assert faces[me] == 2 and backs[me] == 0, (name, faces, backs)
                        assert all(faces[i] == 0 and backs[i] == 2 for i in range(3) if i != me), (name, faces, backs)
                        assert not windows[name].find_element(By.ID, "raw-view").is_displayed(), "raw view data shown by default"
                    shot_taken = True
                check_off_turn(windows, mover)
                pick_bid(driver, 1, 2, shots=None if picker_shot_taken else "liars-dice-picker-%s")
                if not picker_shot_taken:
                    # The window that just bid, now off-turn: bid and liar disabled.
                    wait(driver, lambda d: d.execute_script(OFF_TURN), "%s's controls off-turn" % mover, seconds=5)
                    for width, height, label in SIZES:
                        sized_snap(driver, "liars-dice-off-turn-%s" % label, width, height)
                    picker_shot_taken = True
            elif not raised:
                # The standing bid's quantity and face: no face at or below it is offered
                # with that quantity, no smaller quantity at all; then a legal raise.
                check_off_turn(windows, mover)
                bid = driver.execute_script("return lastState.view.bid")
                quantity, face = bid["quantity"], bid["face"]
                offered = quantities(driver)
                assert offered and min(offered) == quantity, "%s is offered quantities %r over a bid of %d" % (mover, offered, quantity)
                Select(driver.find_element(By.CSS_SELECTOR, BID + ' select[data-argument="1"]')).select_by_visible_text(str(quantity))
                enabled = [int(b.get_attribute("data-value")) for b in driver.find_elements(By.CSS_SELECTOR, BID + " button.face:not([disabled])")]
                assert enabled == list(range(face + 1, 7)), "%s may bid faces %r of %d over %d × %d" % (mover, enabled, quantity, quantity, face)
                assert not driver.find_element(By.ID, "action-args").is_displayed(), "the free-text box is shown for listed moves"
                if illegal_checked == 0:
                    for width, height, label in SIZES:
                        sized_snap(driver, "liars-dice-raise-%s" % label, width, height)
                illegal_checked += 1
                if face < 6:
                    pick_bid(driver, quantity, face + 1)
                else:
                    pick_bid(driver, quantity + 1, 2)
                raised = True
            else:
                click(driver, 'button[data-action="liar"]')
                called = True
                raised = False
            wait(ann, lambda d: log_count(d) > count or over(d), "%s's move on Ann's screen" % mover)
            if called and not call_checked:
                # The first call shows every cup (2 dice each): each window's table draws
                # the same six dice (the rules' table, from the reveal events), and says
                # what the call found.
                shown = {}
                for name in NAMES:
                    cells = '#players .die:not(.back)'
                    wait(windows[name], lambda d: len(d.find_elements(By.CSS_SELECTOR, cells)) == 6, "the shown cups on %s's screen" % name)
                    # Seat by seat (each window seats its own player at the bottom).
                    shown[name] = {n: [e.get_attribute("data-value") for e in windows[name].find_elements(
                        By.CSS_SELECTOR, '#players li[data-name="%s"] .die:not(.back)' % n)] for n in NAMES}
                    assert "calls liar" in text_of(windows[name], "last"), text_of(windows[name], "last")
                    snap(windows[name], "liars-dice-%s-call" % name.lower())
                assert shown["Ann"] == shown["Bob"] == shown["Cy"], shown
                call_checked = True
            moves += 1
            for name in NAMES:
                received[name] += frames(windows[name])
        for name in NAMES:
            wait(windows[name], over, "the result banner on %s's screen" % name)
            snap(windows[name], "liars-dice-%s-over" % name.lower())
            received[name] += frames(windows[name])
        assert shot_taken, "no round reached bidding"
        assert call_checked, "no call was made"
        assert picker_shot_taken and illegal_checked > 0, "no raise was made through the picker"
        checked = sum(check_frames(name, received[name]) for name in NAMES)
        assert checked > 30, "too few frames captured (%d): is the performance log on?" % checked
        winner = text_of(ann, "banner-text")
        print("browser test: Liar's Dice in three windows to the end (%s), %d moves (bids through the picker, %d raises "
              "checked for illegal bids), %d frames checked: ok (%.1f s)"
              % (winner, moves, illegal_checked, checked, time.time() - started))
    finally:
        for driver in windows.values():
            driver.quit()
        server.terminate()
        try:
            server.wait(timeout=5)
        except Exception:
            server.kill()


if __name__ == "__main__":
    main()
