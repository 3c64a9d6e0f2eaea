"""Drives a real Synapse homeserver for the Matrix push gateway's process test
(Tests/HeraldServerTests/MatrixSynapseTests.swift), step by step. Run it with the python that
scripts/synapse prints:

    "$(scripts/synapse)" scripts/synapse_driver.py --work DIR [--wait-seconds 20] \\
        --pusher '{"app_id": "org.example.app", "pushkey": "KEY", "url": "http://127.0.0.1:8080/_matrix/push/v1/notify"}'

DIR should be a fresh empty directory: Synapse's configuration, signing key, SQLite database,
media store and logs (homeserver.log, and synapse.out for what Synapse itself prints) go there.
The driver starts Synapse on a free loopback port (server name `localhost`, no TLS, no
federation, open registration, rate limits out of the way, and 127.0.0.0/8 and ::1 allowed as
push destinations, which Synapse blocks by default), registers @alice:localhost and
@bob:localhost, has alice create a private direct room and invite bob, and bob join. Only then
does bob set the pushers (each --pusher: `url` goes into the pusher's data.url, anything in
`data`, e.g. `format`, `default_payload`, goes into data as well), so that the invite notifies
none of them. It prints one JSON line, {"ready": {"room_id", "sender", "pushers"}}, and then
takes commands, one JSON object per line on stdin, answering each with one JSON line:

- {"message": TEXT}: alice sends an m.text message, which Synapse's default rule
  .m.rule.room_one_to_one makes notify bob (presence plays no part in HTTP pushes). The driver
  waits, at most --wait-seconds, until Synapse has dealt with it for every pusher, as the
  `pushers` table of Synapse's database records it (the client API shows none of it), and answers
  {"event_id", "push_outcomes": [{"app_id", "pushkey", "outcome"}], "pushers_after": [...]}: an
  outcome is "delivered" (the gateway answered 200), "removed" (the gateway rejected the pushkey
  and Synapse deleted the pusher) or "failed" (unreachable, or an error status: Synapse would
  retry with a back-off).
- {"read": true}: bob sends a read receipt for the last message; Synapse then pushes the new
  unread count as a badge-only notification, which its tables do not record: the answer,
  {"read": EVENT_ID}, comes at once and the caller watches the push service.
- {"quit": true}, or the end of stdin: stops Synapse.

On any failure it writes the reason and the last 40 lines of Synapse's log to stderr, stops
Synapse and exits 1. Standard library only (urllib); Synapse's virtual environment supplies
signedjson for the signing key. Synapse gets SIGTERM when the driver ends, even when the driver
is killed.
"""

import argparse
import contextlib
import ctypes
import json
import os
import signal
import socket
import sqlite3
import subprocess
import sys
import time
import urllib.error
import urllib.parse
import urllib.request

SERVER_NAME = "localhost"
PASSWORD = "herald-synapse-test-password"


class Failure(Exception):
    pass


def free_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def write_config(work, port):
    """Writes homeserver.yaml, log.config and the signing key into `work`; returns the config path."""
    from signedjson.key import generate_signing_key, write_signing_keys  # from Synapse's venv

    key_path = os.path.join(work, "signing.key")
    with open(key_path, "w") as f:
        write_signing_keys(f, [generate_signing_key("a_herald")])

    log_config = {
        "version": 1,
        "formatters": {
            "precise": {"format": "%(asctime)s - %(name)s - %(lineno)d - %(levelname)s - %(request)s - %(message)s"}
        },
        # A plain file handler, unbuffered, so the log tail on a failure is complete.
        "handlers": {
            "file": {
                "class": "logging.FileHandler",
                "formatter": "precise",
                "filename": os.path.join(work, "homeserver.log"),
                "encoding": "utf8",
            }
        },
        "loggers": {
            "synapse.storage.SQL": {"level": "WARNING"},
            "synapse.access": {"level": "WARNING"},
        },
        "root": {"level": "INFO", "handlers": ["file"]},
        "disable_existing_loggers": False,
    }
    log_config_path = os.path.join(work, "log.config")
    with open(log_config_path, "w") as f:
        json.dump(log_config, f, indent=2)  # JSON is YAML

    plenty = {"per_second": 10000, "burst_count": 10000}
    config = {
        "server_name": SERVER_NAME,
        "public_baseurl": f"http://127.0.0.1:{port}/",
        "pid_file": os.path.join(work, "homeserver.pid"),
        "listeners": [
            {
                "port": port,
                "bind_addresses": ["127.0.0.1"],
                "type": "http",
                "tls": False,
                "x_forwarded": False,
                "resources": [{"names": ["client"], "compress": False}],
            }
        ],
        "database": {"name": "sqlite3", "args": {"database": os.path.join(work, "homeserver.db")}},
        "log_config": log_config_path,
        "media_store_path": os.path.join(work, "media_store"),
        "signing_key_path": key_path,
        "macaroon_secret_key": os.urandom(16).hex(),
        "form_secret": os.urandom(16).hex(),
        "report_stats": False,
        "enable_metrics": False,
        "trusted_key_servers": [],
        "suppress_key_server_warning": True,
        "url_preview_enabled": False,
        "enable_registration": True,
        "enable_registration_without_verification": True,
        # Synapse refuses outbound requests to private addresses unless allowed here; the push
        # gateway under test is on loopback. (Synapse 1.163 still reads the old option name.)
        "ip_range_whitelist": ["127.0.0.0/8", "::1/128"],
        "push": {"include_content": True},
        "rc_message": plenty,
        "rc_registration": plenty,
        "rc_login": {"address": plenty, "account": plenty, "failed_attempts": plenty},
        "rc_joins": {"local": plenty, "remote": plenty},
        "rc_joins_per_room": plenty,
        "rc_invites": {"per_room": plenty, "per_user": plenty, "per_issuer": plenty},
        "rc_room_creation": plenty,
        "rc_3pid_validation": plenty,
        "rc_presence": {"per_user": plenty},
        "rc_admin_redaction": plenty,
    }
    config_path = os.path.join(work, "homeserver.yaml")
    with open(config_path, "w") as f:
        json.dump(config, f, indent=2)
    return config_path


class Client:
    """Just enough of the client-server API, over urllib with proxies turned off."""

    def __init__(self, base):
        self.base = base
        self.opener = urllib.request.build_opener(urllib.request.ProxyHandler({}))

    def call(self, method, path, body=None, token=None, timeout=15):
        data = None if body is None else json.dumps(body).encode()
        request = urllib.request.Request(self.base + path, data=data, method=method)
        request.add_header("Content-Type", "application/json")
        if token:
            request.add_header("Authorization", f"Bearer {token}")
        try:
            with self.opener.open(request, timeout=timeout) as response:
                return json.loads(response.read() or b"{}")
        except urllib.error.HTTPError as e:
            raise Failure(f"{method} {path} answered {e.code}: {e.read().decode(errors='replace')}") from None


def wait_until_up(client, synapse, deadline):
    while time.monotonic() < deadline:
        if synapse.poll() is not None:
            raise Failure(f"Synapse exited with status {synapse.returncode} while starting")
        try:
            client.call("GET", "/_matrix/client/versions", timeout=2)
            return
        except (OSError, Failure):
            time.sleep(0.25)
    raise Failure("Synapse did not answer /_matrix/client/versions within 60 s")


def register(client, name):
    answer = client.call(
        "POST",
        "/_matrix/client/v3/register",
        {"username": name, "password": PASSWORD, "auth": {"type": "m.login.dummy"}, "initial_device_display_name": name},
    )
    return answer["access_token"]


def pusher_body(spec):
    if not isinstance(spec, dict) or not all(isinstance(spec.get(k), str) for k in ("app_id", "pushkey", "url")):
        raise Failure(f"--pusher needs a JSON object with string app_id, pushkey and url: {spec!r}")
    data = dict(spec.get("data") or {})
    data["url"] = spec["url"]
    return {
        "kind": "http",
        "app_id": spec["app_id"],
        "pushkey": spec["pushkey"],
        "app_display_name": spec.get("app_display_name", "Herald test"),
        "device_display_name": spec.get("device_display_name", "Herald test device"),
        "lang": spec.get("lang", "en"),
        "data": data,
        "append": True,
    }


def listed_pushers(client, token):
    return sorted(
        ({"app_id": p["app_id"], "pushkey": p["pushkey"]} for p in client.call("GET", "/_matrix/client/v3/pushers", token=token)["pushers"]),
        key=lambda p: (p["app_id"], p["pushkey"]),
    )


def push_outcomes(db_path, user_id, pushers, since_ms):
    """What Synapse did with the message for each pusher, read from its `pushers` table: "removed"
    (the row is gone: the gateway rejected the pushkey), "delivered" (last_success set since the
    message was sent: the gateway answered 200), "failed" (failing_since set: unreachable, or an
    error status; Synapse retries with a back-off) or "pending"."""
    with contextlib.closing(sqlite3.connect(f"file:{db_path}?mode=ro", uri=True, timeout=5)) as db:
        rows = {
            (app_id, pushkey): (last_success, failing_since)
            for app_id, pushkey, last_success, failing_since in db.execute(
                "SELECT app_id, pushkey, last_success, failing_since FROM pushers WHERE user_name = ?", (user_id,)
            )
        }
    outcomes = []
    for p in pushers:
        row = rows.get((p["app_id"], p["pushkey"]))
        if row is None:
            outcome = "removed"
        elif (row[0] or 0) >= since_ms:
            outcome = "delivered"
        elif row[1]:
            outcome = "failed"
        else:
            outcome = "pending"
        outcomes.append({"app_id": p["app_id"], "pushkey": p["pushkey"], "outcome": outcome})
    return outcomes


def stop(synapse):
    if synapse is None or synapse.poll() is not None:
        return
    synapse.send_signal(signal.SIGTERM)
    try:
        synapse.wait(timeout=15)
    except subprocess.TimeoutExpired:
        synapse.kill()
        synapse.wait()


def log_tail(work, lines=40):
    out = []
    for name in ("homeserver.log", "synapse.out"):
        try:
            with open(os.path.join(work, name), errors="replace") as f:
                tail = f.readlines()[-lines:]
        except OSError:
            continue
        if tail:
            out.append(f"--- last {len(tail)} lines of {os.path.join(work, name)}\n" + "".join(tail))
    return "".join(out) or "(Synapse wrote no log)\n"


def die_with_parent():
    """Runs in Synapse's process before exec: SIGTERM it when the driver dies, even by SIGKILL."""
    try:
        ctypes.CDLL(None, use_errno=True).prctl(1, signal.SIGTERM)  # PR_SET_PDEATHSIG
    except (OSError, AttributeError):
        pass


def settle(client, synapse, bob, bob_id, db_path, before, sent_ms, wait_seconds):
    """Waits until Synapse has dealt with the message sent at `sent_ms` for every pusher in
    `before`: delivered, removed (rejected) or failed. Returns the outcomes and the pushers left."""
    deadline = time.monotonic() + wait_seconds
    while True:
        if synapse.poll() is not None:
            raise Failure(f"Synapse exited with status {synapse.returncode} after the message was sent")
        outcomes = push_outcomes(db_path, bob_id, before, sent_ms)
        if all(o["outcome"] != "pending" for o in outcomes):
            return outcomes, listed_pushers(client, bob)
        if time.monotonic() >= deadline:
            raise Failure(f"Synapse had not pushed the message within {wait_seconds} s: {outcomes}")
        time.sleep(0.2)


def say(value):
    sys.stdout.write(json.dumps(value) + "\n")
    sys.stdout.flush()


def scenario(args, work, started):
    pushers = [pusher_body(json.loads(text)) for text in args.pusher]
    port = free_port()
    config_path = write_config(work, port)

    # Synapse's HTTP client honours *_proxy variables; the gateway is local, so none apply.
    env = {k: v for k, v in os.environ.items() if not k.lower().endswith("_proxy")}
    with open(os.path.join(work, "synapse.out"), "wb") as out:
        synapse = subprocess.Popen(
            [sys.executable, "-m", "synapse.app.homeserver", "-c", config_path],
            cwd=work,
            env=env,
            stdin=subprocess.DEVNULL,
            stdout=out,
            stderr=subprocess.STDOUT,
            preexec_fn=die_with_parent,
        )
    started.append(synapse)
    client = Client(f"http://127.0.0.1:{port}")
    wait_until_up(client, synapse, time.monotonic() + 60)

    alice = register(client, "alice")
    bob = register(client, "bob")
    bob_id = f"@bob:{SERVER_NAME}"
    room_id = client.call(
        "POST",
        "/_matrix/client/v3/createRoom",
        {"preset": "private_chat", "is_direct": True, "invite": [bob_id]},
        token=alice,
    )["room_id"]
    client.call("POST", f"/_matrix/client/v3/join/{urllib.parse.quote(room_id)}", {}, token=bob)

    # After the join, so that only the messages (not the invite) are pushed.
    for body in pushers:
        client.call("POST", "/_matrix/client/v3/pushers/set", body, token=bob)
    db_path = os.path.join(work, "homeserver.db")
    say({"ready": {"room_id": room_id, "sender": f"@alice:{SERVER_NAME}", "pushers": listed_pushers(client, bob)}})

    last_event = None
    for line in sys.stdin:
        if not line.strip():
            continue
        command = json.loads(line)
        if "message" in command:
            before = listed_pushers(client, bob)
            sent_ms = int(time.time() * 1000)
            last_event = client.call(
                "PUT",
                f"/_matrix/client/v3/rooms/{urllib.parse.quote(room_id)}/send/m.room.message/herald-{sent_ms}",
                {"msgtype": "m.text", "body": command["message"]},
                token=alice,
            )["event_id"]
            outcomes, after = settle(client, synapse, bob, bob_id, db_path, before, sent_ms, args.wait_seconds)
            say({"event_id": last_event, "push_outcomes": outcomes, "pushers_after": after})
        elif "read" in command:
            if last_event is None:
                raise Failure("read before any message")
            # Bob reads the room: Synapse pushes the new unread count (a badge-only notification),
            # which leaves no trace in its tables; the caller watches the push service instead.
            client.call(
                "POST",
                f"/_matrix/client/v3/rooms/{urllib.parse.quote(room_id)}/receipt/m.read/{urllib.parse.quote(last_event)}",
                {},
                token=bob,
            )
            say({"read": last_event})
        elif "quit" in command:
            break
        else:
            raise Failure(f"unknown command {line.strip()}")


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--work", required=True, help="a fresh directory for Synapse's files")
    parser.add_argument("--pusher", action="append", default=[], help="JSON: {app_id, pushkey, url, data?}; repeatable")
    parser.add_argument("--wait-seconds", type=float, default=20, help="how long a message may take to be pushed")
    args = parser.parse_args()

    work = os.path.abspath(args.work)
    os.makedirs(work, exist_ok=True)
    started = []

    def terminated(signum, _frame):
        raise Failure(f"the driver got signal {signum}")

    signal.signal(signal.SIGTERM, terminated)
    signal.signal(signal.SIGINT, terminated)
    try:
        scenario(args, work, started)
    except Exception as e:  # noqa: BLE001 - every failure is reported the same way
        message = str(e) if isinstance(e, Failure) else f"{type(e).__name__}: {e}"
        sys.stderr.write(f"synapse_driver: {message}\n{log_tail(work)}")
        return 1
    finally:
        stop(started[0] if started else None)
    return 0


if __name__ == "__main__":
    sys.exit(main())
