"""EngineDocs for the engine tests, encoded the one way the package encodes documents
(`pipeline.joint.doc_encoding`, as the component does), with the parser's own labels and attributes."""
from spacy_joint_sbd.pipeline.joint.doc_encoding import encode_records


def encode(parser, records):
    return encode_records(records, parser.labels, parser.attrs, parser.document_level)
