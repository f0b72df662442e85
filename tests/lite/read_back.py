"""Reading a converted .tflite back with the tflite package's schema reader (shared by the tests/lite modules)."""
import importlib


def all_ops(content):
    """The builtin op names of every subgraph."""
    Model = importlib.import_module("tflite.Model").Model
    names = {v: k for k, v in vars(importlib.import_module("tflite.BuiltinOperator").BuiltinOperator).items()
             if not k.startswith("_")}
    m = Model.GetRootAs(content, 0)
    return [names[m.OperatorCodes(sg.Operators(i).OpcodeIndex()).BuiltinCode()]
            for sg in (m.Subgraphs(s) for s in range(m.SubgraphsLength())) for i in range(sg.OperatorsLength())]
