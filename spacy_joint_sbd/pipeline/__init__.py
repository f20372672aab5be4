"""spaCy components, one module per registered factory, and their shared base (`_graph_component`:
the graph re-decoders; `_weights_pipe`: components holding one hashed weight table). The joint
parser's internals are in `pipeline.joint`."""
