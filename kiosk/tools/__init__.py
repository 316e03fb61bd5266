"""Tools built on the rules core that the referee itself does not need (self-play game generation)."""
