"""The picture family: one base (``picture.Picture``), one module per kind that builds its model from a core
object (the delegation graph, a state machine, the capability matrix, a contract's flow, a run's timeline), and
the gallery that registers every kind with a sample."""
