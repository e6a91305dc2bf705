"""Question builders, one module per family; each turns ground truth into `Fact`s."""
