"""The core's own plugins: the model formats hpx reads without any engine installed.

:func:`hpx_core.plugins.load_registry` registers each of them (``DEFAULT_PLUGINS`` there) on
the plugin manager before the installed plugins, so the core's reader is asked through the same
hook as theirs (``hpx_read_model``), after them. They are not engines: they declare none and
``hpx plugins`` does not list them.
"""
