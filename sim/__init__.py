"""Pure game logic: the engine contract, the match loop, pilots and one package per game. No I/O."""
