"""Schemathesis hooks for Herald's contract run (loaded through schemathesis.toml).

`POST /subscribers` and `POST /send` take any string as `proto`, and a token whose form the
provider defines: which names exist and what their tokens look like is configuration, so a
request that matches docs/openapi.yaml may still be refused with the 400 the contract declares
for it. schemathesis.toml lets `positive_data_acceptance` take that 400 on these two operations;
this check keeps it exact: a schema-valid request may be refused only with one of those
configuration-dependent answers, never with any other 400.
"""

import itertools
import json
import re

import schemathesis

#: The operations whose schema-valid requests the configuration may refuse.
CONFIGURED = {("POST", "/subscribers"), ("POST", "/send")}

#: pushd-api.md §4.2 and README "Running it safely": an unknown provider, a token the provider
#: does not take, a destination outside the outbound policy.
REFUSALS = re.compile(r"^(Invalid value for `proto'|Invalid value for `token'|Destination not allowed: .+)$")


@schemathesis.check
def configuration_refusals_only(ctx, response, case):
    """A schema-valid registration or raw send is accepted or refused for its configuration only."""
    if (case.operation.method.upper(), case.operation.path) not in CONFIGURED:
        return None
    meta = case.meta
    if meta is None or not meta.generation.mode.is_positive or response.status_code != 400:
        return None
    try:
        error = json.loads(response.content).get("error")
    except (ValueError, AttributeError):
        error = None
    if not isinstance(error, str) or not REFUSALS.match(error):
        raise AssertionError(
            f"Schema-valid request refused for a reason that is not the configuration's: {response.content[:200]!r}"
        )
    return None


#: Requests sent so far: what makes each `Idempotency-Key` unique.
_sent = itertools.count()


@schemathesis.hook
def before_call(context, case, **kwargs):
    """Makes every generated `Idempotency-Key` unique.

    A key is one per server: the generator, which repeats small values, would otherwise send one key
    with two bodies and get the declared 422 (tested with real requests in the Swift suite,
    `PublishProgressTests`), which `positive_data_acceptance` cannot take as an answer to a
    schema-valid request. The suffix keeps the key within the schema: printable ASCII, at most 255.
    """
    headers = case.headers or {}
    for name in list(headers):
        if name.lower() == "idempotency-key" and isinstance(headers[name], str):
            suffix = f"-{next(_sent)}"
            headers[name] = headers[name][: 255 - len(suffix)] + suffix
