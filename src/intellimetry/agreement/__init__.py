"""Five measures, one set of subjects: do the measures of machine intelligence agree? (a study chapter)"""
