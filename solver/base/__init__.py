"""The ground floor: what every floor above shares and that knows no game: errors, dice
encodings, the decision record, build options and progress, the parallel-pool helper, the
table file format and the limited JSON loader. It imports nothing of ours.
"""
