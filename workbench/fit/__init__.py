"""``workbench fit-weights``: the pilots' evaluate weights fitted on the outcomes of self-play
(positions.py plays and measures, logistic.py fits, document.py writes the weight set)."""
