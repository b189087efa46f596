"""python -m intellimetry.book build|assemble [--profile P] | check HTML_DIR | scoreboard [--profile P]"""
import sys

from intellimetry.book import build, check, scoreboard

argv = sys.argv[1:]
commands = {"check": check.main, "scoreboard": scoreboard.main}
sys.exit(commands[argv[0]](argv[1:]) if argv[:1] and argv[0] in commands else build.main(argv))
