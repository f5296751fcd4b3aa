"""The exporter hosts' addresses a place hands to ssh, checked before ssh sees them.

A place's ``NetworkService`` address and an ``HpxProbe``'s host come from the coordinator,
which anyone who can reach it may have written into. ssh reads an argument that starts with
``-`` as an option (``-oProxyCommand=...`` runs a command here), so hpx puts ``--`` before the
destination where it builds the command line and refuses any address that is not a host name
or an IP address, which also covers the command lines labgrid builds itself.
"""

from __future__ import annotations

import re

from hpx_core.errors import FarmError

# A host name, an IPv4 address, an IPv6 one (bracketed or not, with its zone): never a
# leading "-", no spaces, no shell or ssh syntax.
_ADDRESS = re.compile(r"[A-Za-z0-9_.:%\[\]][A-Za-z0-9_.:%\[\]-]*\Z")


def check_address(address: object, owner: str) -> str:
    """``address`` when ssh can only take it for a host; a :class:`FarmError` naming
    ``owner`` (``place qemu-a``) otherwise."""
    if not isinstance(address, str) or not _ADDRESS.match(address):
        raise FarmError(f"{owner} offers {address!r} as its exporter host's address, which is "
                        "not a host name or IP address",
                        "fix the address in the exporter's configuration")
    return address
