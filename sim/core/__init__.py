"""What every game shares: the engine contract, RNG streams, the event buffer, the card ledger,
the match loop, pilots and the scenario runner. Nothing here names a game or assumes two seats."""
