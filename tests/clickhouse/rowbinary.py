"""rowbinary.py: ClickHouse's RowBinary rows, as rocedump --export sends and spools them, read
back for the tests: each row its columns' values in the table's order, numbers little-endian in
their type's width, a String as its length (unsigned LEB128) then its bytes, an Array(String) as
its length then its Strings."""
import struct

NUMBERS = {'UInt8': '<B', 'UInt16': '<H', 'Int16': '<h', 'UInt32': '<I', 'DateTime': '<I', 'UInt64': '<Q',
           'Int64': '<q'}


def varint(data, at):
    """The LEB128 number at data[at:] and where it ends."""
    v = shift = 0
    while True:
        if at >= len(data) or shift > 63:
            raise ValueError(f'a length runs past the end at byte {at}')
        c = data[at]
        at += 1
        v |= (c & 0x7f) << shift
        shift += 7
        if not c & 0x80:
            return v, at


def string(data, at):
    n, at = varint(data, at)
    if at + n > len(data):
        raise ValueError(f'a String of {n} bytes runs past the end at byte {at}')
    return data[at:at + n].decode(), at + n


def rows(data, columns):
    """The rows of data (bytes), as dicts, for columns [(name, type)]; ValueError when data is not
    whole rows."""
    out, at = [], 0
    while at < len(data):
        row = {}
        for name, typ in columns:
            if typ == 'String':
                row[name], at = string(data, at)
            elif typ == 'Array(String)':
                n, at = varint(data, at)
                row[name] = []
                for _ in range(n):
                    v, at = string(data, at)
                    row[name].append(v)
            else:
                fmt = NUMBERS[typ]
                size = struct.calcsize(fmt)
                if at + size > len(data):
                    raise ValueError(f'{name}: {typ} runs past the end at byte {at}')
                row[name] = struct.unpack_from(fmt, data, at)[0]
                at += size
        out.append(row)
    return out
