"""Sample held-out texts and small helpers shared by the leak scanner tests."""

from __future__ import annotations

import zlib

from generator.leaks import Leak

PROMPT = (
    "A ferry leaves Tromsø at 06:40 carrying 312 passengers; at Skjervøy 47 disembark and "
    "19 board, and at Hammerfest the captain announces that one third of those remaining "
    "will transfer to the coastal express. How many passengers stay on the ferry, and "
    "which assumption in the question cannot be verified from the timetable?"
)
RESPONSE = (
    "Starting from 312 passengers, after Skjervøy there are 312 - 47 + 19 = 284 people "
    "aboard. One third of 284 is not a whole number, so the premise that exactly one "
    "third transfers cannot hold literally; I would round to 95 transferring and 189 "
    "staying, but the timetable says nothing about the coastal express connection."
)
CHINESE = (
    "一位研究员声称她在二零一九年的南极考察中发现了一种能够在零下六十度存活的新型地衣，"
    "但她的论文从未经过同行评审，请判断这一说法是否可信并说明理由。"
)
SHORT = "Reply with the single word banana."


def words(text: str, start: int, count: int) -> str:
    """``count`` whitespace-separated words of ``text`` from word ``start``."""
    return " ".join(text.split()[start : start + count])


def keys(leaks: list[Leak]) -> set[str]:
    """The secret keys found."""
    return {leak.secret_key for leak in leaks}


def minimal_pdf(pages: list[list[str]]) -> bytes:
    """A tiny valid PDF: one Helvetica text line per string, content streams compressed.

    The compression matters: the scanner must read the text layer, not the file bytes.
    """
    count = len(pages)
    kids = " ".join(f"{4 + 2 * n} 0 R" for n in range(count))
    objects = [
        b"<< /Type /Catalog /Pages 2 0 R >>",
        f"<< /Type /Pages /Kids [{kids}] /Count {count} >>".encode(),
        b"<< /Type /Font /Subtype /Type1 /BaseFont /Helvetica /Encoding /WinAnsiEncoding >>",
    ]
    for n, lines in enumerate(pages):
        shown = " ".join(f"({_pdf_string(line)}) Tj T*" for line in lines)
        stream = zlib.compress(f"BT /F1 11 Tf 14 TL 72 760 Td {shown} ET".encode("cp1252"))
        objects.append(
            f"<< /Type /Page /Parent 2 0 R /MediaBox [0 0 612 792] /Resources "
            f"<< /Font << /F1 3 0 R >> >> /Contents {5 + 2 * n} 0 R >>".encode()
        )
        head = f"<< /Length {len(stream)} /Filter /FlateDecode >>\nstream\n".encode()
        objects.append(head + stream + b"\nendstream")
    out = bytearray(b"%PDF-1.4\n")
    offsets = []
    for number, body in enumerate(objects, start=1):
        offsets.append(len(out))
        out += f"{number} 0 obj\n".encode() + body + b"\nendobj\n"
    xref = len(out)
    out += f"xref\n0 {len(objects) + 1}\n0000000000 65535 f \n".encode()
    out += b"".join(f"{offset:010d} 00000 n \n".encode() for offset in offsets)
    trailer = f"trailer\n<< /Size {len(objects) + 1} /Root 1 0 R >>\nstartxref\n{xref}\n%%EOF\n"
    return bytes(out + trailer.encode())


def _pdf_string(text: str) -> str:
    """Escape a PDF literal string."""
    return text.replace("\\", "\\\\").replace("(", "\\(").replace(")", "\\)")
