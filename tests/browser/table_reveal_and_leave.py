"""Browser test of issue 44's table, by clicking as players do, at 1280 and 390 px.

- Craps: `reset` is no button a player with money can press; Tab reaches Roll, Enter rolls.
- Mia with three windows: after a call the called cup lies face up at its owner's seat
  ("showed at the call") with the call in the middle; at the next round's first roll both
  leave the table and the new cup is face down for the others. Cy leaves (the page asks
  first and keeps the seat in this browser): the others see "left the table", Cy takes the
  seat back from the room's card in the lobby.
- Liar's Dice: after a call the dice that counted are lit, the loser's seat says they lost
  a die; played to the end, "Ready for another game" from both starts a new game with a
  fresh log. Designer mode (?dev=1) alone shows the raw view.
Every page passes axe-core with no serious or critical violation. Screenshots go to
$SCREENSHOTS (default /work/screens when it exists).

Run by `make test-browser`:  .build-venv/bin/python tests/browser/table_reveal_and_leave.py
"""
import os
import time

from selenium.webdriver.common.action_chains import ActionChains
from selenium.webdriver.common.by import By
from selenium.webdriver.common.keys import Keys
from selenium.webdriver.support import expected_conditions as EC

from accessibility import serious_violations
from every_game_table import create_room, screens_folder, set_size, stop
from snap_two_players import browser, click, start_server, text_of, wait

SIZES = [(1280, 900, False), (390, 844, True)]


def join_as(driver, url, room, name):
    driver.get(url + "?room=" + room)
    wait(driver, lambda d: d.find_elements(By.CSS_SELECTOR, "#join-here"), "the room's card")
    wait(driver, EC.visibility_of_element_located((By.ID, "join-card")), "%s's join card" % name)
    box = driver.find_element(By.ID, "name")
    box.clear()
    box.send_keys(name)
    click(driver, "#join-here")
    wait(driver, EC.visibility_of_element_located((By.ID, "table")), "%s's table" % name)


def enabled(driver, selector):
    return [b for b in driver.find_elements(By.CSS_SELECTOR, selector) if b.is_displayed() and b.is_enabled()]


def click_when(driver, selector, what):
    button = wait(driver, lambda d: (enabled(d, selector) or [None])[0], what)
    button.click()


def seat_text(driver, name):
    return driver.execute_script(
        "const li = Array.from(document.querySelectorAll('#players li')).find((l) => l.dataset.name === arguments[0]);"
        "return li ? li.innerText : '';", name)


def seat_dice(driver, name):
    """(face-up dice, face-down dice) at a player's seat."""
    return driver.execute_script(
        "const li = Array.from(document.querySelectorAll('#players li')).find((l) => l.dataset.name === arguments[0]);"
        "return li ? [li.querySelectorAll('.die:not(.back)').length, li.querySelectorAll('.die.back').length] : [0, 0];", name)


def snapshot(windows, stage, folder):
    """At both sizes: no serious axe violation, nothing wider than the window, a screenshot."""
    for width, height, mobile in SIZES:
        for name, driver in windows:
            set_size(driver, width, height, mobile)
        time.sleep(0.2)
        for name, driver in windows:
            found = serious_violations(driver)
            assert not found, "%s, %s at %d px: axe-core:\n  %s" % (name, stage, width, "\n  ".join(found))
            wide = driver.execute_script("return document.documentElement.scrollWidth > window.innerWidth")
            assert not wide, "%s, %s at %d px: wider than the window" % (name, stage, width)
            if folder:
                driver.execute_script("window.scrollTo(0, 0)")
                driver.save_screenshot(os.path.join(folder, "%s-%d-%s.png" % (stage, width, name.lower())))
    for name, driver in windows:
        set_size(driver, 1280, 900, False)


def mover(windows, selector):
    for name, driver in windows:
        if enabled(driver, selector):
            return name, driver
    return None, None


def craps_reset(url):
    ann = browser()
    try:
        create_room(ann, url, "craps", 1, {"rounds": "3"})
        wait(ann, lambda d: d.find_element(By.ID, "turn").text, "Ann's turn")
        resets = ann.find_elements(By.CSS_SELECTOR, '#actions button[data-action="reset"]')
        assert resets and not resets[0].is_enabled(), "reset is pressable with $200"
        assert not ann.find_element(By.ID, "raw-details").is_displayed(), "the raw view outside designer mode"
        assert not ann.find_elements(By.CSS_SELECTOR, "#leds .led"), "LED faces outside designer mode"
        # Keyboard play: Tab reaches the Roll button, Enter rolls.
        for _ in range(40):
            if ann.execute_script("return document.activeElement && document.activeElement.id") == "roll":
                break
            ActionChains(ann).send_keys(Keys.TAB).perform()
        assert ann.execute_script("return document.activeElement.id") == "roll", "Tab never reaches the Roll button"
        count = len(ann.find_elements(By.CSS_SELECTOR, "#log li[data-index]"))
        ActionChains(ann).send_keys(Keys.ENTER).perform()
        wait(ann, lambda d: len(d.find_elements(By.CSS_SELECTOR, "#log li[data-index]")) > count, "a roll by the keyboard")
        print("  craps: no reset for a player with money; Tab and Enter roll")
    finally:
        ann.quit()


def mia(url, folder):
    ann, bob, cy = browser(), browser(), browser()
    windows = [("Ann", ann), ("Bob", bob), ("Cy", cy)]
    try:
        room = create_room(ann, url, "mia", 3, {"lives": "2"})
        join_as(bob, url, room, "Bob")
        join_as(cy, url, room, "Cy")
        wait(ann, lambda d: "Your turn" in d.find_element(By.ID, "turn").text, "Ann's turn")
        click_when(ann, "#roll", "Ann's roll")
        click_when(ann, '#actions [data-action="announce"] button.choice', "Ann's announcement")
        wait(cy, lambda d: "Ann announced" in text_of(d, "headline"), "the announcement on Cy's table")
        assert "announced" in seat_text(cy, "Ann"), seat_text(cy, "Ann")
        click_when(bob, '#actions button[data-action="call"]', "Bob's call")
        # The call: Ann's cup face up at her seat, the call in the middle.
        wait(cy, lambda d: "calls" in text_of(d, "last"), "the call on Cy's table")
        assert "showed at the call" in seat_text(cy, "Ann"), seat_text(cy, "Ann")
        assert seat_dice(cy, "Ann") == [2, 0], seat_dice(cy, "Ann")
        snapshot(windows, "mia-after-call", folder)
        # The next round's first roll: the reveal and the call leave the table.
        name, driver = mover(windows, "#roll")
        assert driver is not None, "nobody to roll the next round"
        driver.find_element(By.ID, "roll").click()
        other = cy if name != "Cy" else ann
        wait(other, lambda d: not d.find_element(By.ID, "last").is_displayed(), "the call cleared at the next roll")
        assert seat_dice(other, name) == [0, 2], "the new cup is face down for the others: %r" % seat_dice(other, name)
        assert "showed" not in other.find_element(By.ID, "players").text
        snapshot(windows, "mia-new-round", folder)
        # Cy leaves: asked first; the seat stays Cy's (the bot plays it) and comes back.
        click(cy, "#leave")
        wait(cy, EC.visibility_of_element_located((By.ID, "leave-confirm")), "the leave confirmation")
        click(cy, "#leave-yes")
        wait(cy, EC.visibility_of_element_located((By.ID, "lobby")), "Cy's lobby")
        token = cy.execute_script("return JSON.parse(localStorage.getItem('dicehost.seat.' + arguments[0]) || '{}').token", room)
        assert token, "leaving deleted the seat's token"
        wait(ann, lambda d: "left the table" in seat_text(d, "Cy"), "Cy marked as left at Ann's table")
        snapshot([("Ann", ann)], "room-with-a-player-who-left", folder)
        wait(cy, lambda d: "Take my seat back" in d.find_element(By.ID, "join-here").text, "Cy's card offering the seat back")
        snapshot([("Cy", cy)], "lobby-seat-to-take-back", folder)
        click(cy, "#join-here")
        wait(cy, EC.visibility_of_element_located((By.ID, "table")), "Cy back at the table")
        wait(ann, lambda d: "left the table" not in seat_text(d, "Cy"), "Cy's seat taken back at Ann's table")
        print("  mia: the call shown until the next roll, a player left and came back")
    finally:
        for driver in (ann, bob, cy):
            driver.quit()


def liars_dice(url, folder):
    ann, bob = browser(), browser()
    windows = [("Ann", ann), ("Bob", bob)]
    plays = ["#roll", 'button.move[data-action="liar"]', '.picker[data-action="bid"] button.move']
    try:
        room = create_room(ann, url, "liars-dice", 2, {"start_dice": "2"})
        join_as(bob, url, room, "Bob")
        wait(ann, lambda d: d.find_element(By.ID, "turn").text, "the game to start")
        called = False
        for _ in range(60):
            if ann.find_element(By.ID, "banner").is_displayed():
                break
            name, driver = mover(windows, ", ".join(plays))
            if driver is None:
                time.sleep(0.1)
                continue
            for selector in plays:
                buttons = enabled(driver, selector)
                if buttons:
                    buttons[0].click()
                    break
            time.sleep(0.25)
            if not called and ann.find_element(By.ID, "last").is_displayed():
                called = True
                wait(ann, lambda d: d.find_elements(By.CSS_SELECTOR, "#players .die.counted, #players .die.wild")
                     or "0 counted" in d.find_element(By.ID, "players").text, "the dice that counted")
                text = ann.find_element(By.ID, "players").text
                assert "lost a die" in text or "out" in text, text
                snapshot(windows, "liars-dice-after-call", folder)
        wait(ann, lambda d: d.find_element(By.ID, "banner").is_displayed(), "the end of the game")
        assert called, "no call was drawn"
        # Play again: only when both are ready; a fresh log.
        click(ann, "#restart")
        wait(bob, lambda d: "ready for another game" in seat_text(d, "Ann"), "Ann ready at Bob's table")
        assert bob.find_element(By.ID, "banner").is_displayed(), "a game started before Bob was ready"
        click(bob, "#restart")
        wait(ann, lambda d: not d.find_element(By.ID, "banner").is_displayed(), "the new game")
        log = [li.text for li in ann.find_elements(By.CSS_SELECTOR, "#log li")]
        assert not any("calls liar" in line for line in log), "the last game's log runs on: %r" % log
        assert log and log[-1].startswith("A new game"), log
        # Designer mode: the raw view.
        assert not ann.find_element(By.ID, "raw-details").is_displayed()
        ann.get(url + "?room=" + room + "&dev=1")
        wait(ann, EC.visibility_of_element_located((By.ID, "raw-details")), "the raw view in designer mode")
        print("  liar's dice: the counted dice lit, play again when both are ready, a fresh log")
    finally:
        ann.quit()
        bob.quit()


def main():
    started = time.time()
    folder = screens_folder()
    server, url = start_server()
    try:
        craps_reset(url)
        mia(url, folder)
        liars_dice(url, folder)
        lobby = browser()
        try:
            lobby.get(url)
            wait(lobby, EC.visibility_of_element_located((By.ID, "lobby")), "the lobby")
            wait(lobby, lambda d: d.find_elements(By.CSS_SELECTOR, '#create-rules option[value="liars-dice.lua"]'), "the games")
            lobby.execute_script("const s = document.getElementById('create-rules'); s.value = 'liars-dice.lua'; s.onchange();")
            text = lobby.find_element(By.ID, "create-form").text
            assert "Dice per player" in text and "Ones are wild" in text and "bluff" not in text.lower(), text
            assert lobby.find_element(By.CSS_SELECTOR, '[data-param="ones_wild"]').get_attribute("type") == "checkbox"
            options = [o.text for o in lobby.find_elements(By.CSS_SELECTOR, "#create-rules option")]
            assert "Labyrinth (1 player)" in options, options
            snapshot([("lobby", lobby)], "lobby", folder)
        finally:
            lobby.quit()
        print("browser test: reveals, leaving and play again: ok (%.1f s)" % (time.time() - started))
    finally:
        stop(server)


if __name__ == "__main__":
    main()
