"""Schemathesis hooks for Herald's contract run (loaded through schemathesis.toml).

`POST /subscribers` and `POST /send` take any string as `proto`, and a token whose form the
provider defines: which names exist and what their tokens look like is configuration, so a
request that matches docs/openapi.yaml may still be refused with the 400 the contract declares
for it. Likewise `POST /event/{event}` refuses a delivery time further ahead than
`delivery.max_schedule_ahead`, a bound relative to now. schemathesis.toml lets
`positive_data_acceptance` take a 400 on these operations (and on `POST /tokens`, whose providers
must be configured ones); this check keeps it exact: a
schema-valid request may be refused only with one of those answers, never with any other 400.
"""

import itertools
import json
import os
import re

import schemathesis

#: The operations whose schema-valid requests the configuration, or the time, may refuse, and
#: with which errors: pushd-api.md §4.2 and README "Running it safely" (an unknown provider, a
#: token the provider does not take, a destination outside the outbound policy), and a scheduled
#: publish due further ahead than `delivery.max_schedule_ahead` (a bound on `at` or `delay`
#: relative to now, which no schema can state).
CONFIGURED = {
    ("POST", "/subscribers"): re.compile(r"^(Invalid value for `proto'|Invalid value for `token'|Destination not allowed: .+)$"),
    ("POST", "/send"): re.compile(r"^(Invalid value for `proto'|Invalid value for `token'|Destination not allowed: .+)$"),
    # Which provider has APNs broadcast channels (token authentication) is configuration too.
    ("POST", "/event/{event}"): re.compile(
        r"^(The delivery time is more than [0-9]+ seconds ahead|No provider has broadcast channels"
        r"|Several providers have broadcast channels: name one with apnsProvider|The provider .+ has no broadcast channels)$"
    ),
    # The providers a token names must be configured ones, and its lifetime at most ten years, which
    # the pattern of `expires_in` with a unit cannot state.
    ("POST", "/tokens"): re.compile(r"^(Unknown provider .+|Invalid value for `expires_in')$"),
}


@schemathesis.check
def configuration_refusals_only(ctx, response, case):
    """A schema-valid registration, raw send or publish is accepted, or refused for its configuration
    or its time only."""
    refusals = CONFIGURED.get((case.operation.method.upper(), case.operation.path))
    if refusals is None:
        return None
    meta = case.meta
    if meta is None or not meta.generation.mode.is_positive or response.status_code != 400:
        return None
    try:
        error = json.loads(response.content).get("error")
    except (ValueError, AttributeError):
        error = None
    if not isinstance(error, str) or not refusals.match(error):
        raise AssertionError(
            f"Schema-valid request refused for a reason that is not the configuration's: {response.content[:200]!r}"
        )
    return None


#: Requests sent so far, and this run's own mark: what makes each `Idempotency-Key` unique, also
#: across the runs of several seeds against one server (scripts/contract).
_sent = itertools.count()
_run = os.getpid()


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
            suffix = f"-{_run}-{next(_sent)}"
            headers[name] = headers[name][: 255 - len(suffix)] + suffix
