"""The tinyseq engine's steps as typed functions; the hooks in ``plugin.py`` only adapt them."""

from __future__ import annotations

import hashlib
from pathlib import Path

import numpy as np

from hpx_core.sdk import (
    BufferNeed,
    CodeSize,
    FirmwareContribution,
    FirmwareRequest,
    LayerReference,
    MemoryNeeds,
    MemoryRequest,
    ModelError,
    ModelRequest,
    ReferenceLayer,
    ReferenceTensor,
    model_view,
)
from hpx_core.sdk.models import ModelInfo, Operator, TensorInfo
from hpx_tinyseq import glue
from hpx_tinyseq.config import TinyseqConfig
from hpx_tinyseq.identity import BACKENDS, FORMAT
from hpx_tinyseq.model import Dense, Sequence, read_sequence, seeded_int8
from hpx_tinyseq.reference import host_outputs
from hpx_tinyseq.results import REFERENCE, TinyseqFacts

# What the glue's code and small constants take besides the planned buffers.
CODE = CodeSize(least=2 * 1024, likely=16 * 1024)


def read_model(request: ModelRequest) -> ModelInfo:
    """The model stage: the file read, the core's view of it, and the parse kept for later."""
    model = read_sequence(request.path, request.data)
    info = model_info(model, len(request.data), request.sha256)
    model_view(info, _read_again, known=model)
    return info


def model_info(model: Sequence, size: int, sha256: str) -> ModelInfo:
    """One operator per layer; MACs are units x inputs for dense, none for the others."""
    operators = []
    width = len(model.input)
    for index, layer in enumerate(model.layers):
        macs = params = 0
        if isinstance(layer, Dense):
            macs, params = layer.units * layer.inputs, len(layer.weights) + len(layer.bias)
        operators.append(Operator(index=index, name=layer.op, inputs=[(width,)],
                                  outputs=[(layer.width,)], macs=macs, params=params))
        width = layer.width
    dense_layers = [layer for layer in model.layers if isinstance(layer, Dense)]
    return ModelInfo(
        format=FORMAT,
        path=model.path,
        sha256=sha256,
        size_bytes=size,
        operators=operators,
        inputs=[TensorInfo("input", "int8", (len(model.input),), len(model.input))],
        outputs=[TensorInfo(model.layers[-1].name, "int8", (model.output_width,),
                            model.output_width)],
        weight_bytes=sum(len(d.weights) + 4 * len(d.bias) for d in dense_layers),
        resolver_ops=tuple(dict.fromkeys(layer.op for layer in model.layers)),
    )


def sequence_of(model: ModelInfo) -> Sequence:
    """The parse behind a model the model stage read (read again only in another process)."""
    return model_view(model, _read_again)


def _read_again(model: ModelInfo) -> Sequence:
    path = Path(model.path)
    try:
        data = path.read_bytes()
    except OSError as error:
        raise ModelError(f"{path}: cannot read it again: {error.strerror}",
                         "keep the model file in place during a run") from None
    if hashlib.sha256(data).hexdigest() != model.sha256:
        raise ModelError(f"{path}: it changed since the model stage read it",
                         "keep the model file unchanged during a run")
    return read_sequence(path, data)


def plan_memory(request: MemoryRequest) -> MemoryNeeds:
    """The weights and biases where ``model.location`` says, the activations where
    ``model.arena_location`` says (the core chooses when they are unset)."""
    size = glue.sizes(sequence_of(request.model))
    return MemoryNeeds(
        (
            BufferNeed(glue.WEIGHTS, "dense weights", size.weights, writable=False,
                       option="model.location", location=request.location,
                       symbol=glue.WEIGHTS),
            BufferNeed(glue.BIAS, "dense biases", size.bias, writable=False,
                       option="model.location", location=request.location,
                       symbol=glue.BIAS),
            BufferNeed(glue.ACTIVATIONS, "activations", size.activations, writable=True,
                       option="model.arena_location", location=request.arena_location,
                       symbol=glue.ACTIVATIONS),
        ),
        CODE,
    )


def input_values(model: Sequence, config: TinyseqConfig) -> tuple[int, ...]:
    if config.input_seed is None:
        return model.input
    return seeded_int8(config.input_seed, "input", len(model.input))


def layer_reference(values: tuple[int, ...], outputs: tuple[np.ndarray, ...]
                    ) -> LayerReference:
    """Tensor 0 is the input, tensor i + 1 the output of layer i, which layer i + 1 reads."""
    layers = []
    previous = np.asarray(values, dtype=np.int8)
    for index, out in enumerate(outputs):
        layers.append(ReferenceLayer(
            index=index,
            outputs=(ReferenceTensor(index + 1, "int8", (out.size,), out.tobytes(), None,
                                     None),),
            inputs=(ReferenceTensor(index, "int8", (previous.size,), previous.tobytes(), None,
                                    None),),
        ))
        previous = out
    return LayerReference(REFERENCE, tuple(layers), None)


def firmware(request: FirmwareRequest) -> FirmwareContribution:
    """The glue for this model and backend, its planned buffers' attributes, the reference."""
    config = request.engine.config_as(TinyseqConfig)
    backend = request.engine.backend or BACKENDS[0]
    model = sequence_of(request.model)
    values = input_values(model, config)
    outputs = host_outputs(model.layers, values)
    layout = request.layout
    attributes = {name: layout.attribute(name) if layout is not None else ""
                  for name in (glue.WEIGHTS, glue.BIAS, glue.ACTIVATIONS)}
    crcs = glue.expected_crcs(outputs)
    made = glue.make_glue(model, values, attributes, crcs, backend)
    check = request.check_layers != "off"
    return FirmwareContribution(
        files=made.files,
        sources=made.sources,
        fingerprint_inputs={"model": request.model.sha256, "backend": backend,
                            "input_seed": str(config.input_seed)},
        facts=TinyseqFacts(backend=backend, names=model.names,
                           input_seed=(model.input_seed if config.input_seed is None
                                       else config.input_seed),
                           expected=outputs[-1].tobytes()),
        layer_reference=layer_reference(values, outputs) if check else None,
    )
