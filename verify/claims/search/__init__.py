"""Search and shrinking: the seeded engine, random and corner sampling, Hypothesis strategies, simplification."""
