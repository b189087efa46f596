"""AGITB: the Artificial General Intelligence Testbed (Šprogar), twelve axiom tests on 10-bit sequences."""
