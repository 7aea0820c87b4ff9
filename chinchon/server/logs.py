"""Structured log lines: one JSON object a line with ``--log-json``. No token or card is ever logged."""

from __future__ import annotations

import json
import logging
import sys
import time

__all__ = ["setup_logging"]

# Uvicorn's color_message repeats the message with terminal colour codes.
_STANDARD = set(vars(logging.LogRecord("x", 0, "x", 0, "x", None, None))) | {"message", "asctime", "color_message"}


class JsonFormatter(logging.Formatter):
    """A log record as one JSON object: time, level, logger, message and the record's extra fields."""

    def format(self, record: logging.LogRecord) -> str:
        entry = {
            "time": round(record.created, 3),
            "level": record.levelname.lower(),
            "logger": record.name,
            "message": record.getMessage(),
        }
        entry.update({key: value for key, value in vars(record).items() if key not in _STANDARD})
        if record.exc_info and record.exc_info[0] is not None:
            entry["error"] = record.exc_info[0].__name__
        return json.dumps(entry, ensure_ascii=False, default=str)


class TextFormatter(logging.Formatter):
    """A log record as a line of text, the extra fields as ``key=value``."""

    def format(self, record: logging.LogRecord) -> str:
        extra = " ".join(f"{k}={v}" for k, v in vars(record).items() if k not in _STANDARD)
        stamp = time.strftime("%H:%M:%S", time.localtime(record.created))
        line = f"{stamp} {record.levelname.lower()} {record.name}: {record.getMessage()}"
        if record.exc_info and record.exc_info[0] is not None:
            line += f" error={record.exc_info[0].__name__}"
        return f"{line} {extra}".rstrip()


def setup_logging(level: str = "info", as_json: bool = False) -> None:
    """Send the server's log (and Uvicorn's) to standard error."""
    handler = logging.StreamHandler(sys.stderr)
    handler.setFormatter(JsonFormatter() if as_json else TextFormatter())
    for name in ("chinchon.server", "uvicorn", "uvicorn.error", "uvicorn.access"):
        logger = logging.getLogger(name)
        logger.handlers[:] = [handler]
        logger.setLevel(level.upper())
        logger.propagate = False
        if name.startswith("uvicorn") and logger.level < logging.INFO:
            # Uvicorn's debug lines dump every WebSocket frame, hellos and their tokens included.
            logger.setLevel(logging.INFO)
