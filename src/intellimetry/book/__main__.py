"""python -m intellimetry.book build|assemble [--profile P] | check HTML_DIR | scoreboard [--profile P]
| record [--profile P] [ID ...]"""
import sys

from intellimetry.book import build, check, runs, scoreboard

argv = sys.argv[1:]
commands = {"check": check.main, "scoreboard": scoreboard.main, "record": runs.main}
sys.exit(commands[argv[0]](argv[1:]) if argv[:1] and argv[0] in commands else build.main(argv))
