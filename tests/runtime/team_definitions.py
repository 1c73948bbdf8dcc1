"""The team's definitions in the process-wide registry: what a worker imports
(`python -m threadlab worker --import tests.runtime.team_definitions`)."""

import threadlab as tl

from .team import define_team

define_team(tl.default_registry())
