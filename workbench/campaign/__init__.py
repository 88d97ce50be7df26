"""Campaign batches (a game's roguelike runs, e.g. Frontier Run): the spec, the worker that
plays a chunk of runs, and the rows it hands the store. Game-agnostic: the rules live in
sim/<game>/campaign/ behind sim/core/campaign.py's contract."""
