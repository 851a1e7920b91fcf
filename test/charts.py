#!/usr/bin/env python3
"""Reads a PNG screenshot of a chart (test/charts.sh) and checks it.

    python3 test/charts.py <png> [<check> ...]

A check is "blank" (the picture is 800 x 400, not blank: some part of it is
drawn, in several colours) or "label:x,y:#rrggbb" (a pixel within 1.5 px of
(x, y) has that colour, to within a distance of 60 in RGB: antialiasing
blends a line's edge with what is under it) or "label:x,y:!#rrggbb" (no
pixel within 1.5 px has it).  Prints one line per check, "PASS label" or
"FAIL label: why"; exits 1 if any failed.  Only the standard library: the
PNG is decoded here (8-bit RGB or RGBA, not interlaced, as Chromium writes
it).
"""
import struct
import sys
import zlib


def read_png(path):
    with open(path, "rb") as f:
        data = f.read()
    if data[:8] != b"\x89PNG\r\n\x1a\n":
        raise ValueError("not a PNG file")
    pos, idat, width, height, colour, depth, interlace = 8, b"", 0, 0, 0, 0, 0
    while pos < len(data):
        (length,) = struct.unpack(">I", data[pos:pos + 4])
        kind = data[pos + 4:pos + 8]
        body = data[pos + 8:pos + 8 + length]
        pos += 12 + length
        if kind == b"IHDR":
            width, height, depth, colour, _, _, interlace = struct.unpack(">IIBBBBB", body)
        elif kind == b"IDAT":
            idat += body
        elif kind == b"IEND":
            break
    if depth != 8 or colour not in (2, 6) or interlace:
        raise ValueError("unsupported PNG: depth %d, colour type %d, interlace %d" % (depth, colour, interlace))
    bpp = 3 if colour == 2 else 4
    raw = zlib.decompress(idat)
    stride = width * bpp
    rows, prev, i = [], bytearray(stride), 0
    for _ in range(height):
        ftype, line = raw[i], bytearray(raw[i + 1:i + 1 + stride])
        i += 1 + stride
        if ftype == 1:
            for x in range(bpp, stride):
                line[x] = (line[x] + line[x - bpp]) & 255
        elif ftype == 2:
            for x in range(stride):
                line[x] = (line[x] + prev[x]) & 255
        elif ftype == 3:
            for x in range(stride):
                left = line[x - bpp] if x >= bpp else 0
                line[x] = (line[x] + ((left + prev[x]) >> 1)) & 255
        elif ftype == 4:
            for x in range(stride):
                a = line[x - bpp] if x >= bpp else 0
                b = prev[x]
                c = prev[x - bpp] if x >= bpp else 0
                p = a + b - c
                pa, pb, pc = abs(p - a), abs(p - b), abs(p - c)
                pred = a if pa <= pb and pa <= pc else (b if pb <= pc else c)
                line[x] = (line[x] + pred) & 255
        rows.append(line)
        prev = line
    return width, height, bpp, rows


def main():
    path, checks = sys.argv[1], sys.argv[2:]
    width, height, bpp, rows = read_png(path)

    def pixel(x, y):
        r = rows[y]
        return tuple(r[x * bpp:x * bpp + 3])

    failed = 0
    for check in checks:
        if check == "blank":
            drawn, colours = 0, set()
            for y in range(0, height, 2):
                for x in range(0, width, 2):
                    p = pixel(x, y)
                    colours.add(p)
                    if sum(p) < 3 * 235:
                        drawn += 1
            share = drawn / ((height // 2) * (width // 2))
            ok = (width, height) == (800, 400) and share > 0.01 and len(colours) > 8
            print("%s not blank: %dx%d, %.1f %% drawn, %d colours" % (
                "PASS" if ok else "FAIL", width, height, 100 * share, len(colours)))
            failed += not ok
            continue
        label, at, want = check.split(":")
        x, y = (float(v) for v in at.split(","))
        absent = want.startswith("!")
        want = want.lstrip("!")
        rgb = tuple(int(want[i:i + 2], 16) for i in (1, 3, 5))
        best, best_d = None, None
        for py in range(int(y - 1.5), int(y + 1.5) + 1):
            for px in range(int(x - 1.5), int(x + 1.5) + 1):
                if 0 <= px < width and 0 <= py < height and (px - x) ** 2 + (py - y) ** 2 <= 1.5 ** 2 + 0.5:
                    p = pixel(px, py)
                    d = sum((p[k] - rgb[k]) ** 2 for k in range(3)) ** 0.5
                    if best_d is None or d < best_d:
                        best, best_d = p, d
        found = best_d is not None and best_d <= 60
        ok = found != absent
        print("%s %s: %s at (%g, %g), nearest #%02x%02x%02x" % (
            "PASS" if ok else "FAIL", label, ("no " if absent else "") + want, x, y, *best))
        failed += not ok
    sys.exit(1 if failed else 0)


if __name__ == "__main__":
    main()
