"""Browser test: a Pixels die at the table, through Chromium's Web Bluetooth API.

A stand-in navigator.bluetooth (tests/browser/fake-pixels-bluetooth.js, injected before
the page's scripts) speaks the Pixels protocol's bytes. Ann creates a Race to Space room
that takes a smart die's rolls, Bob joins from a second window, Ann connects her Pixels
die: the page asks for the Pixels service, says WhoAreYou and reads IAmADie. Her die's
roll reaches the room as her smart-die roll (both windows show it); the LED commands of
her turns are written to the die as Blink bytes, Bob's turns' are not; a tilt and too
short a roll are shown, not sent; a dropped die is shown.

Run by `make test-pixels-browser`:  .build-venv/bin/python tests/browser/pixels_table.py
"""
import json
import os
import re
import time

from selenium.webdriver.common.by import By
from selenium.webdriver.support import expected_conditions as EC
from selenium.webdriver.support.ui import Select

from snap_two_players import browser, click, set_param, shows, start_server, text_of, wait

HERE = os.path.dirname(os.path.abspath(__file__))
SERVICE = "6e400001-b5a3-f393-e0a9-e50e24dcca9e"
# Blink (id 29): 5 flashes over 750 ms, green 0x0000FF00, face 4 (bit 3), no fade, once.
GREEN_FACE_4 = [0x1D, 5, 0xEE, 0x02, 0x00, 0xFF, 0x00, 0x00, 0x08, 0x00, 0x00, 0x00, 0, 0]
# Blink: the turn pulse, once over 400 ms, blue 0x000000FF, all six faces.
BLUE_PULSE = [0x1D, 1, 0x90, 0x01, 0xFF, 0x00, 0x00, 0x00, 0x3F, 0x00, 0x00, 0x00, 0, 0]


# The page's codec against the byte vectors of Tests/DiceHostTests/PixelsMessageTests.swift.
CODEC_CHECKS = """
const P = window.PixelsProtocol, out = [];
const decode = (bytes) => { try { return P.decode(new Uint8Array(bytes)); } catch (e) { return e.message; } };
out.push(decode([0x03, 0x01, 0x04]));
out.push(decode([0x22, 9, 2]));
out.push(decode([0x24, 0xC6]));
out.push(decode([0x02, 6, 0, 2, 0x78, 0x56, 0x34, 0x12, 0xEF, 0xBE, 0xAD, 0xDE, 0x00, 0x10, 0x00, 0xF1, 0x53, 0x65, 5, 2, 87, 0]));
out.push(decode([0x03, 0x01]));
out.push(decode([0x03, 0x01, 0x04, 0x00]));
out.push(decode([99]));
out.push(decode([0x22, 101, 0]));
out.push(Array.from(P.encodeBlink({ count: 5, duration: 750, color: 0x00ff00, faceMask: 0x08 })));
out.push(Array.from(P.encodeBlink({ count: 1, duration: 10000, color: 0xff0000, faceMask: 63, fade: 255, loop: 1 })));
try { P.encodeBlink({ count: 300, duration: 1, color: 0, faceMask: 1 }); out.push("encoded"); } catch (e) { out.push(e.message); }
return out;
"""
CODEC_EXPECTED = [
    {"type": "rollState", "state": "rolled", "faceIndex": 4},
    {"type": "batteryLevel", "percent": 9, "state": "charging", "charging": True},
    {"type": "rssi", "dBm": -58},
    {"type": "iAmADie", "ledCount": 6, "dieType": 2, "pixelId": 0xDEADBEEF, "rollState": "on_face", "faceIndex": 2,
     "battery": {"percent": 87, "state": "ok", "charging": False}},
    "Pixels message RollState: 2 bytes, too short (expected 3)",
    "Pixels message RollState: 4 bytes, too long (expected 3)",
    "Pixels message: unknown message id 99",
    "Pixels message BatteryLevel: battery level 101, expected 0…100 percent",
    GREEN_FACE_4,
    [0x1D, 1, 0x10, 0x27, 0x00, 0x00, 0xFF, 0x00, 0x3F, 0x00, 0x00, 0x00, 255, 1],
    "Pixels message Blink: count 300, expected 0…255",
]


def written(driver):
    return driver.execute_script("return window.__fakePixel.written")


def main():
    started = time.time()
    server, url = start_server()
    ann = bob = None
    try:
        ann, bob = browser(), browser()
        with open(os.path.join(HERE, "fake-pixels-bluetooth.js"), encoding="utf-8") as f:
            ann.execute_cdp_cmd("Page.addScriptToEvaluateOnNewDocument", {"source": f.read()})

        ann.get(url)
        wait(ann, EC.visibility_of_element_located((By.ID, "lobby")), "Ann's lobby")
        wait(ann, lambda d: d.find_elements(By.CSS_SELECTOR, '#create-rules option[value="race.lua"]'), "race in the rules list")
        ann.find_element(By.ID, "name").send_keys("Ann")
        Select(ann.find_element(By.ID, "create-rules")).select_by_value("race.lua")
        seats = ann.find_element(By.ID, "create-seats")
        seats.clear()
        seats.send_keys("2")
        set_param(ann, "pulse_ms", "500")
        click(ann, "#create-device-rolls")
        click(ann, "#create")
        wait(ann, EC.visibility_of_element_located((By.ID, "table")), "Ann's table")
        room = re.search(r"room=([A-Za-z0-9_-]+)", ann.current_url).group(1)
        codec = ann.execute_script(CODEC_CHECKS)
        assert len(codec) == len(CODEC_EXPECTED), codec
        for got, expected in zip(codec, CODEC_EXPECTED):
            assert got == expected, "pixels.js codec: %r, expected %r" % (got, expected)

        bob.get(url + "?room=" + room)
        wait(bob, lambda d: d.find_elements(By.CSS_SELECTOR, '#rooms li[data-room="%s"] button.join' % room), "the room in Bob's lobby")
        bob.find_element(By.ID, "name").send_keys("Bob")
        click(bob, '#rooms li[data-room="%s"] button.join' % room)
        wait(ann, shows(ann, "turn", "Your turn"), "Ann's turn")

        # Connect: the Pixels service is asked for; WhoAreYou, then RequestRssi, are written.
        click(ann, "#die-menu summary")  # the Pixels button is behind the table's die menu
        click(ann, "#pixels-connect")
        wait(ann, shows(ann, "pixels-status", "Pixels die connected (battery 87%)"), "the die connected")
        requests = ann.execute_script("return window.__fakePixel.requests")
        assert requests == [{"filters": [{"services": [SERVICE]}]}], json.dumps(requests)
        wait(ann, lambda d: written(d)[:2] == [[0x01], [0x23, 1, 0, 0]], "WhoAreYou, then RequestRssi, written")

        # Ann's die lands on face index 3: her smart-die roll of 4, in both windows; the
        # rolled face's green blink is written to her die as Blink bytes.
        ann.execute_script("window.__fakePixel.roll(3)")
        wait(bob, shows(bob, "log", "Ann rolled ⚃"), "Ann's die roll on Bob's screen")
        wait(ann, shows(ann, "log", "You rolled ⚃"), "Ann's die roll on her screen")
        wait(ann, lambda d: GREEN_FACE_4 in written(d), "the green Blink written to Ann's die")
        wait(bob, shows(bob, "turn", "Your turn"), "Bob's turn")

        # Bob's turn: his pulses and his roll's blink are not for Ann's die.
        time.sleep(1.2)
        count = len(written(ann))
        click(bob, "#roll")
        wait(ann, shows(ann, "turn", "Your turn"), "Ann's turn again")
        assert len(written(ann)) == count, written(ann)[count:]

        # Ann's turn again: the blue pulse (every 500 ms here) goes to her die.
        wait(ann, lambda d: BLUE_PULSE in written(d)[count:], "Ann's turn pulse written as a Blink", seconds=5)

        # A crooked landing and too short a roll go to the room as flagged rolls: the
        # rules say they did not count (to both windows), and it is still Ann's turn.
        ann.execute_script("window.__fakePixel.tilt()")
        wait(ann, shows(ann, "notice", "Your Pixels die says tilt: roll again."), "the tilt")
        wait(bob, shows(bob, "log", "Ann: the roll did not count (tilt), roll again"), "the tilt in Bob's log")
        ann.execute_script("window.__fakePixel.flick(2)")
        wait(ann, shows(ann, "notice", "Your Pixels die says too_short: roll again."), "the short roll")
        wait(bob, shows(bob, "log", "Ann: the roll did not count (too_short), roll again"), "the short roll in Bob's log")
        assert "Your turn" in text_of(ann, "turn")

        # The die drops: shown, and the button offers to connect again.
        ann.execute_script("window.__fakePixel.drop()")
        wait(ann, shows(ann, "pixels-status", "Pixels die: the die disconnected"), "the dropped die")
        assert text_of(ann, "pixels-connect") == "Connect a Pixels die"
        print("browser test: a Pixels die at the table (Web Bluetooth stand-in): ok (%.1f s)" % (time.time() - started))
    finally:
        for driver in (ann, bob):
            if driver:
                driver.quit()
        server.terminate()
        server.wait(timeout=5)


if __name__ == "__main__":
    main()
