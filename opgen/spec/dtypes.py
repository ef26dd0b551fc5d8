"""The spec's dtype vocabulary: `opgen.dtypes`, re-exported where the spec layer has always imported it from.

A dtype is a fact of the hardware and of ACL (enum values, element sizes, PyTorch's promotion), not of the spec
format, so it lives in `opgen.dtypes`, which the spec and the emitters both import.
"""

from opgen.dtypes import AICORE_DTYPES as AICORE_DTYPES
from opgen.dtypes import AICPU_COMPLEX_DTYPES as AICPU_COMPLEX_DTYPES
from opgen.dtypes import AICPU_DTYPES as AICPU_DTYPES
from opgen.dtypes import AICPU_INTEGER_DTYPES as AICPU_INTEGER_DTYPES
from opgen.dtypes import DType as DType
from opgen.dtypes import can_cast as can_cast
from opgen.dtypes import promote_types as promote_types
from opgen.dtypes import wrap_integer as wrap_integer
