"""OpenSpiel's own C++ CFR+ on its liars_dice until the exploitability (on +-1 payoffs)
is at most the target: the peer figure `bench/solve-secrets.sh` prints beside dicehost's.
Checks the exploitability on the same schedule as dicehost (every eighth more iterations)."""
import sys
import time

import pyspiel

target = float(sys.argv[1]) if len(sys.argv) > 1 else 1e-4
game = pyspiel.load_game("liars_dice")
solver = pyspiel.CFRPlusSolver(game)
start = time.process_time()
iterations, next_check, exploitability = 0, 1, 1.0
while True:
    solver.evaluate_and_update_policy()
    iterations += 1
    if iterations >= next_check:
        exploitability = pyspiel.exploitability(game, solver.average_policy())
        next_check = iterations + max(4, iterations // 8)
        if exploitability <= target:
            break
print(f"openspiel {iterations} {exploitability:.6e} {time.process_time() - start:.2f}")
