#!/usr/bin/env python3
"""OpenSpiel's C++ `pig` (two players, win score 100) driven from Python with the same
policy as the other Pig baselines: hold at a turn total of 20 or when holding reaches the
goal. Needs `pip install open_spiel` (bench/speed.py makes a venv for it).
Usage: python bench/pig_openspiel.py [GAMES]. Prints games per CPU second."""
import random, sys, time

import pyspiel

GOAL, HOLD, ROLL, STOP = 100, 20, 0, 1

def play(game, rng):
    state = game.new_initial_state()
    scores, turn_total, rolls = [0, 0], 0, 0
    while not state.is_terminal():
        if state.is_chance_node():
            outcome = rng.randrange(6)  # outcome i is a die showing i + 1
            state.apply_action(outcome)
            rolls += 1
            if outcome == 0:
                turn_total = 0
            else:
                turn_total += outcome + 1
            continue
        player = state.current_player()
        if turn_total >= HOLD or scores[player] + turn_total >= GOAL:
            scores[player] += turn_total
            turn_total = 0
            state.apply_action(STOP)
        else:
            state.apply_action(ROLL)
    return state.returns()[0] > 0, rolls

def main():
    games = int(sys.argv[1]) if len(sys.argv) > 1 else 5000
    game = pyspiel.load_game("pig", {"players": 2, "winscore": GOAL})
    rng = random.Random(1)
    start = time.process_time()
    wins = rolls = 0
    for _ in range(games):
        won, n = play(game, rng)
        wins += won
        rolls += n
    seconds = time.process_time() - start
    print(f"OpenSpiel pig from Python: {games} games in {seconds:.3f} s, {games / seconds:.0f} games/s "
          f"(first player wins {wins / games:.5f}, {rolls / games:.3f} rolls/game)")

main()
