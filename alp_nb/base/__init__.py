"""The ground every layer stands on: frozen models and records, the error root, strict YAML, atomic file writes,
one-line JSON encoders and lazy package exports. It imports no other part of alp_nb."""

from typing import TYPE_CHECKING

from .lazy import lazy_exports

if TYPE_CHECKING:
    from .atomic_file import write_atomic as write_atomic
    from .errors import BASE_ERROR_CODES as BASE_ERROR_CODES, AlpError as AlpError
    from .frozen import freeze as freeze, thaw as thaw
    from .frozen_model import (
        FrozenJson as FrozenJson,
        FrozenMapping as FrozenMapping,
        FrozenModel as FrozenModel,
        validation_issues as validation_issues,
    )
    from .frozen_struct import FrozenStruct as FrozenStruct, StructInvalid as StructInvalid, refusal as refusal
    from .jsonline import line_encoder as line_encoder
    from .safe_files import (
        RefusedFile as RefusedFile,
        check_not_link as check_not_link,
        open_regular as open_regular,
        read_regular as read_regular,
    )
    from .schema_errors import error_location as error_location
    from .strict_yaml import dump_strict_yaml as dump_strict_yaml, load_strict_yaml as load_strict_yaml
    from .untrusted_json import UntrustedJson as UntrustedJson, loads_untrusted as loads_untrusted

__getattr__, __dir__, __all__ = lazy_exports(__name__, __file__)
