"""A real Web Push application server (RFC 8030 pushes, RFC 8291 aes128gcm encryption, RFC 8292
VAPID) and the user agent's side of the encryption, for the UnifiedPush process test in
Tests/HeraldServerTests. Run it with the python that scripts/webpush-appserver prints; each
subcommand prints one JSON object on stdout.

  keys      a receiver (user agent) P-256 keypair and auth secret, and an application server
            VAPID keypair:
            {"p256dh", "auth", "receiver_private", "vapid_public", "vapid_private_pem"}
  push      --endpoint URL --p256dh X --auth Y --vapid-private-pem-file F --sub mailto:...
            --data TEXT [--ttl N]: encrypts and signs with pywebpush.webpush (aes128gcm; VAPID
            with aud = the endpoint's origin, as pywebpush derives it) and sends:
            {"status", "headers", "body", "sent_base64"}; an answer other than 2xx is reported
            the same way (exit 0): only a failure without an answer exits non-zero
  decrypt   --receiver-private X --auth Y --body-base64 B: decrypts an aes128gcm body with
            http_ece as the user agent would: {"plaintext"}

Keys are base64url without padding (receiver_private: the 32-byte private scalar); --body-base64
takes standard or URL-safe base64, padded or not.
"""

import argparse
import base64
import json
import os
import sys

import http_ece
import py_vapid
import pywebpush
from cryptography.hazmat.primitives import serialization
from cryptography.hazmat.primitives.asymmetric import ec


def b64url(data: bytes) -> str:
    return base64.urlsafe_b64encode(data).rstrip(b"=").decode("ascii")


def unb64(text: str) -> bytes:
    text = text.strip().replace("+", "-").replace("/", "_").rstrip("=")
    return base64.urlsafe_b64decode(text + "=" * (-len(text) % 4))


def uncompressed(public_key) -> bytes:
    return public_key.public_bytes(serialization.Encoding.X962, serialization.PublicFormat.UncompressedPoint)


def keys(_args) -> dict:
    receiver = ec.generate_private_key(ec.SECP256R1())
    vapid = py_vapid.Vapid()
    vapid.generate_keys()
    return {
        "p256dh": b64url(uncompressed(receiver.public_key())),
        "auth": b64url(os.urandom(16)),
        "receiver_private": b64url(receiver.private_numbers().private_value.to_bytes(32, "big")),
        "vapid_public": b64url(uncompressed(vapid.public_key)),
        "vapid_private_pem": vapid.private_pem().decode("ascii"),
    }


def answer(response) -> dict:
    sent = response.request.body if response.request is not None else None
    if isinstance(sent, str):
        sent = sent.encode("utf-8")
    return {
        "status": response.status_code,
        "headers": dict(response.headers),
        "body": response.text,
        "sent_base64": base64.b64encode(sent).decode("ascii") if sent else None,
    }


def push(args) -> dict:
    subscription = {"endpoint": args.endpoint, "keys": {"p256dh": args.p256dh, "auth": args.auth}}
    try:
        response = pywebpush.webpush(
            subscription_info=subscription,
            data=args.data,
            vapid_private_key=args.vapid_private_pem_file,
            vapid_claims={"sub": args.sub},
            content_encoding="aes128gcm",
            ttl=args.ttl,
            timeout=30,
        )
    except pywebpush.WebPushException as error:
        # pywebpush raises for every answer above 202; the answer is what is reported.
        if error.response is None:
            raise
        return answer(error.response)
    return answer(response)


def decrypt(args) -> dict:
    value = int.from_bytes(unb64(args.receiver_private), "big")
    private_key = ec.derive_private_key(value, ec.SECP256R1())
    plaintext = http_ece.decrypt(
        unb64(args.body_base64), version="aes128gcm", private_key=private_key, auth_secret=unb64(args.auth)
    )
    return {"plaintext": plaintext.decode("utf-8")}


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    commands = parser.add_subparsers(dest="command", required=True)
    commands.add_parser("keys").set_defaults(run=keys)
    sender = commands.add_parser("push")
    sender.add_argument("--endpoint", required=True)
    sender.add_argument("--p256dh", required=True)
    sender.add_argument("--auth", required=True)
    sender.add_argument("--vapid-private-pem-file", required=True)
    sender.add_argument("--sub", required=True, help="the VAPID contact, mailto:… or https://…")
    sender.add_argument("--data", required=True)
    sender.add_argument("--ttl", type=int, default=0, help="seconds; pywebpush's default is 0")
    sender.set_defaults(run=push)
    reader = commands.add_parser("decrypt")
    reader.add_argument("--receiver-private", required=True)
    reader.add_argument("--auth", required=True)
    reader.add_argument("--body-base64", required=True)
    reader.set_defaults(run=decrypt)
    args = parser.parse_args()
    if args.command == "push" and not os.path.isfile(args.vapid_private_pem_file):
        # py_vapid would otherwise generate and save a new key under that name.
        parser.error(f"no such file: {args.vapid_private_pem_file}")
    print(json.dumps(args.run(args), sort_keys=True))
    return 0


if __name__ == "__main__":
    sys.exit(main())
