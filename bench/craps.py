#!/usr/bin/env python3
"""The Craps pass line (one player, $200, $5 ante, one decision per game) as a plain
Python loop: the baseline for `dicehost sim rules/craps.lua --set rounds=1`.
Usage: python3 bench/craps.py [GAMES]. Prints games per CPU second."""
import random, sys, time

def play(rng):
    balance, ante, point, rolls = 200, 5, None, 0
    while True:
        total = rng.randint(1, 6) + rng.randint(1, 6)
        rolls += 1
        won = None
        if point is None:
            if total in (7, 11):
                won = True
            elif total in (2, 3, 12):
                won = False
            else:
                point = total
        elif total == point:
            won = True
        elif total == 7:
            won = False
        if won is not None:
            balance += ante if won else -ante
            return balance > 200, rolls

def main():
    games = int(sys.argv[1]) if len(sys.argv) > 1 else 200000
    rng = random.Random(1)
    start = time.process_time()
    wins = rolls = 0
    for _ in range(games):
        won, n = play(rng)
        wins += won
        rolls += n
    seconds = time.process_time() - start
    print(f"plain Python craps: {games} games in {seconds:.3f} s, {games / seconds:.0f} games/s "
          f"(win rate {wins / games:.5f}, {rolls / games:.4f} rolls/game)")

main()
