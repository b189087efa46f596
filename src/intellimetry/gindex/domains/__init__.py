"""Seeded generators for the 16 task domains of the g-index paper (Venkatasubramanian et al. 2021, Appendix A).

A domain is a family of tasks that share one program structure and differ in the values of a few slots:
times and cron schedules, search queries, chat messages, e-mail fields, URLs, file names, hashtags, bot
and user names, slider ranges, form fields.  Each draw fills the slots from a `random.Random` and returns
a pair (English task specification, reference Node-RED flow) in which the slot values appear in the
node properties (cron expression, reminder topic, switch rules, query, URL, file name, ...), so that a
program-synthesis model could copy them from the text: the "known unknowns" of level-1 generalisation.

The node types, property keys and wiring follow the Node-RED node packages that the paper's programs use
(node-red, node-red-contrib-cron-plus, node-red-contrib-chatbot, node-red-node-twitter and the authors'
maya-red-* packages).  The sentence templates, vocabularies, value pools, selectors and functions are this
project's own: they are not the authors' data set, and nothing here reads it.
"""
from intellimetry.gindex.domains.cron import describe_cron, random_cron
from intellimetry.gindex.domains.generators import DOMAINS
from intellimetry.gindex.domains.tasks import (
    Task,
    generate_corpus,
    generate_task,
    generate_tasks,
    task_from_json,
    task_to_json,
)

__all__ = [
    "DOMAINS", "Task", "describe_cron", "generate_corpus", "generate_task", "generate_tasks", "random_cron",
    "task_from_json", "task_to_json",
]
