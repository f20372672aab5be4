"""Text files in, sentences out: reading (decoding without newline translation, stdin, folders and
globs, a decodability check before anything is written), the writers per output format, and
`segment_files`, which the `segment` command and `scale`'s shards both call, and `runner`: how a
run ends (signals, worker processes, partial output, a closed stdout). Below the CLI: it parses no
arguments and prints nothing but warnings and a progress bar."""
from .files import check_settings, segment_files
from .reading import (STDIN, InputError, Inputs, PrefixedStream, TextReader, check_decodable, check_pattern,
                      check_text, check_text_encoding, decode_error, expand_inputs, find_inputs, is_stream, open_text, read_small)
from .writing import FORMATS, STDIN_ID, OutputError, Writer, sentences_to_record

__all__ = ["FORMATS", "STDIN", "STDIN_ID", "InputError", "Inputs", "OutputError", "PrefixedStream", "TextReader",
           "Writer", "check_decodable", "check_pattern", "check_settings", "check_text", "check_text_encoding", "decode_error",
           "expand_inputs", "find_inputs", "is_stream", "open_text", "read_small", "segment_files",
           "sentences_to_record"]
