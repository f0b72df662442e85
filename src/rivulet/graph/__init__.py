"""Dataflow graphs: Graph, Operation and their GraphDef form."""
