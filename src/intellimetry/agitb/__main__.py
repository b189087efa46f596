"""Run AGITB on a model from the command line.

    python -m intellimetry.agitb MODEL [--simulated-infinity 5000] [--tests all|1,3,5] [--seed 1]
                                [--stop-at-first-failure] [--replay TEST:SEED] [--json FILE]

MODEL is a candidate name (always-zero, echo, history-random, order-1, order-7, ...) or
`package.module:ClassName` of your own class. A fresh model is ClassName(); it needs model(x) -> int
(feed one 10-bit input, return the prediction of the next), == and copy(), and may offer
state_key() and feed_many(xs) (see intellimetry.agitb.protocol). The model is checked against that
before any test: what is missing is named and the command exits with status 2.

Give your model state_key() (a hashable value, equal for equal models): without it the trace test
(test 3) compares every state with every earlier one and grows roughly with SimulatedInfinity³;
a pure-Python order-7 lookup without a key took 431 s on test 3 at SimulatedInfinity = 500.
Each failure is printed with the seed that replays it: `--replay 3:123456789`.
"""
from __future__ import annotations

import argparse
import sys
from dataclasses import asdict

from intellimetry.agitb.axioms import TEST_NUMBERS, Result, Settings, replay, run_suite
from intellimetry.agitb.models import load_model
from intellimetry.agitb.protocol import REQUIRED, protocol_problems
from intellimetry.atomic import write_json


def parse_tests(text: str) -> tuple[int, ...]:
    if text == "all":
        return TEST_NUMBERS
    try:
        numbers = tuple(int(t) for t in text.split(","))
    except ValueError:
        raise argparse.ArgumentTypeError(f"--tests takes 'all' or numbers like 1,3,5; got {text!r}") from None
    if not set(numbers) <= set(TEST_NUMBERS):
        raise argparse.ArgumentTypeError(f"--tests: test numbers run from 1 to 12; got {text!r}")
    return numbers


def print_result(result: Result) -> None:
    seed = f"  replay with --replay {result.number}:{result.failure_seed}" if result.failure_seed is not None else ""
    print(f"{result.number:>2}. {result.name:<28} {result.verdict:<12} {result.seconds:8.2f} s  {result.message}{seed}",
          flush=True)


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(prog="python -m intellimetry.agitb", description=__doc__,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("model")
    parser.add_argument("--simulated-infinity", type=int, default=5000)
    parser.add_argument("--tests", type=parse_tests, default=TEST_NUMBERS)
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--stop-at-first-failure", action="store_true", help="the paper's all-or-nothing rule")
    parser.add_argument("--replay", metavar="TEST:SEED", help="run one recorded repetition again")
    parser.add_argument("--json", metavar="FILE", help="also write the results as JSON")
    args = parser.parse_args(argv)
    try:
        factory = load_model(args.model)
        settings = Settings(simulated_infinity=args.simulated_infinity)
    except ValueError as error:
        parser.error(str(error))
    problems = protocol_problems(factory)
    if problems:
        print(f"{args.model} does not follow the AGITB model protocol ({REQUIRED}):\n"
              + "\n".join(f"  - {problem}" for problem in problems), file=sys.stderr)
        return 2
    if args.replay:
        test, _, seed = args.replay.partition(":")
        message = replay(int(test), int(seed), factory, settings)
        print(f"test {test}, seed {seed}: " + ("passes" if message is None else f"fails: {message}"))
        return 0 if message is None else 1
    print(f"AGITB on {args.model}: SimulatedInfinity = {settings.simulated_infinity}, seed = {args.seed}")
    results = run_suite(factory, settings, args.seed, args.tests, args.stop_at_first_failure, progress=print_result)
    passed = sum(r.verdict == "pass" for r in results)
    print(f"passed {passed} of {len(results)} tests")
    if args.json:
        write_json(args.json, {"model": args.model, "settings": asdict(settings),
                               "seed": args.seed, "results": [r.as_dict() for r in results]})
    return 0 if passed == len(results) else 1


if __name__ == "__main__":
    sys.exit(main())
