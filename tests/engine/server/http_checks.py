"""What the raw-socket server tests (raw_http_test.py, frontend_test.py) check of an answer."""
import json


def openai_error(body):
    """Whether `body` is an OpenAI-shaped error: {"error": {"message": non-empty, "type", ...}}."""
    try:
        e = json.loads(body)["error"]
        return isinstance(e["message"], str) and e["message"] != "" and "type" in e
    except (ValueError, KeyError, TypeError):
        return False
