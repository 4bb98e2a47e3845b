"""A service's messaging, declared: the FastStream router it registers on, and its contract.

`ServiceRouter` is a FastStream `NatsRouter` that also holds the service's durable pull
consumers (`Consumer.register(router)` adds itself here; the runtime that includes the router
creates, starts and stops them). A `Contract` lists what a service consumes and publishes, with
payload models: the runtime declares its publishers to FastStream, and the AsyncAPI document
(`shared.messaging.asyncapi`) declares all of it, consumers included, on a broker that is never
started (a durable consumer runs on `StreamingPull`, not a FastStream subscriber).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from faststream.nats import NatsRouter, PullSub

if TYPE_CHECKING:
    from .consumer import Consumer
    from .topology import ConsumerSpec


@dataclass(frozen=True)
class Publication:
    """Events a service publishes: the subject (its repository tokens as `{owner}.{repo}`), the
    payload's model, and what it means."""

    subject: str
    model: Any
    description: str = ""


@dataclass(frozen=True)
class Subscription:
    """Events a service consumes: through a durable (`consumer`), or on core NATS (`subject`)."""

    model: Any
    description: str = ""
    consumer: ConsumerSpec | None = None
    subject: str = ""
    reply: Any = None  # the model of the reply, for a request subject


@dataclass(frozen=True)
class Contract:
    service: str
    subscribes: Sequence[Subscription] = ()
    publishes: Sequence[Publication] = field(default_factory=tuple)

    @property
    def consumers(self) -> list[ConsumerSpec]:
        return [s.consumer for s in self.subscribes if s.consumer is not None]


class ServiceRouter(NatsRouter):
    """One service's FastStream router and durable pull consumers."""

    def __init__(self, *args: Any, document: bool = False, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.pull_consumers: list[Consumer[Any]] = []
        # True on the AsyncAPI document's broker: what a running service does not subscribe to
        # through FastStream (its durables) is declared as a subscriber for the document
        self.document = document

    def add_pull_consumer(self, consumer: Consumer[Any]) -> None:
        if consumer not in self.pull_consumers:
            self.pull_consumers.append(consumer)

    def declare(self, contract: Contract) -> None:
        """Declare the contract's publications (always) and subscriptions (for the document)."""
        for pub in contract.publishes:
            self.publisher(
                pub.subject,
                schema=pub.model,
                title=f"{pub.subject}:{contract.service}",
                description=pub.description or None,
            )
        if not self.document:
            return
        for sub in contract.subscribes:
            self._document(contract.service, sub)

    def _document(self, service: str, sub: Subscription) -> None:
        async def handler(body):
            raise NotImplementedError

        # the payload's and the reply's types, as objects (this module's annotations are strings)
        handler.__annotations__ = {"body": sub.model, "return": sub.reply}

        if sub.consumer is not None:
            spec = sub.consumer
            what = sub.description or spec.description
            how = (
                f"JetStream stream {spec.stream}, durable {spec.durable}: explicit acks, "
                f"batches of up to {spec.batch_size}, ack_wait {spec.ack_wait:g} s, "
                f"max_deliver {spec.max_deliver} (then RD_DEAD)"
            )
            self.subscriber(
                spec.filter_subject,
                stream=spec.stream,
                durable=spec.durable,
                pull_sub=PullSub(batch_size=spec.batch_size),
                title=f"{spec.durable}:{service}",
                description=f"{what} ({how})" if what else how,
            )(handler)
        else:
            self.subscriber(
                sub.subject, title=f"{sub.subject}:{service}", description=sub.description or None
            )(handler)
