"""``workbench tune``: rebalancing proposals (workbench/commands/tune.py is the command).

- ``versions``: the starting version, candidate versions held in memory (resolved by the loader,
  never written until one is proposed) and the proposal written as a rules file.
- ``search``: the field search (smallest set of card-number changes bringing every deck's field
  win rate into the band), its verification and further rounds.
- ``fair``: one card's fair number (``--card X --stat S``), from its measured value.
- ``record``: the store tables a proposal goes to.
"""
