"""Board farms through labgrid: boards on other machines, shared by a team, with no hpx server.

hpx is a labgrid client. A lab runs labgrid's coordinator and an exporter on each machine the
boards hang off; places (set up with ``labgrid-client``) group an exporter's resources and carry
a ``board`` tag. ``target.place`` (``--place``) makes a run reserve and hold such a place and run
there (:mod:`.runner`); ``hpx places`` lists them (:mod:`.places`). labgrid is an optional
dependency (``pip install "hpx-core[labgrid]"``), imported only when a farm is used.
"""
