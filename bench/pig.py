#!/usr/bin/env python3
"""The baseline a designer might write instead: Pig (two players, goal 100; roll, and hold
at a turn total of 20 or when holding reaches the goal; a 1 loses the turn total) as a
plain Python loop. Usage: python3 bench/pig.py [GAMES]. Prints games per CPU second."""
import random, sys, time

GOAL, HOLD = 100, 20

def play(rng):
    scores = [0, 0]
    player, turn_total, rolls = 0, 0, 0
    while True:
        score = scores[player]
        if turn_total >= HOLD or score + turn_total >= GOAL:
            scores[player] = score + turn_total
            if scores[player] >= GOAL:
                return player, rolls
            player, turn_total = 1 - player, 0
        else:
            v = rng.randint(1, 6)
            rolls += 1
            if v == 1:
                player, turn_total = 1 - player, 0
            else:
                turn_total += v

def main():
    games = int(sys.argv[1]) if len(sys.argv) > 1 else 20000
    rng = random.Random(1)
    start = time.process_time()
    wins = rolls = 0
    for _ in range(games):
        winner, n = play(rng)
        wins += winner == 0
        rolls += n
    seconds = time.process_time() - start
    print(f"plain Python pig: {games} games in {seconds:.3f} s, {games / seconds:.0f} games/s "
          f"(first player wins {wins / games:.5f}, {rolls / games:.3f} rolls/game)")

main()
