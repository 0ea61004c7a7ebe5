"""The virtual table: physics, an overhead-camera renderer, simulated pocket sensors, truth.

Physics and ground truth (this package's core, numpy only):

- `motion`: ball phases (sliding, rolling, spinning, stationary, and scripted airborne,
  driven, pocketed) with their analytic equations; `Segment`, a piece of trajectory.
- `boundary`: cushion noses, jaw faces, jaw points and pocket lines from a `TableSpec`.
- `solve`: exact event times (quartic ball-ball, quadratic cushion, line crossings).
- `contact`: impulses (ball-ball with throw, cushion with friction and nose height, a rack's
  simultaneous contacts) and the cue strike (speed, heading, follow/draw, side).
- `physics`: `Engine`, the event loop, also the scripting surface (fly, drive, place, remove).
- `result`: `SimResult` / `Trajectory`: `snapshot(t)` -> `TableSnapshot` for the renderer,
  `blur_times` for motion blur.
- `play`: `Play`, a scripted session that records each shot as a `rules.shot.Shot`.
- `truth`: `ScenarioTruth`, `FrameTruth` and friends, written with `rules.codec`.
- `aim`, `racks`, `shooter`: ghost-ball aiming with throw, WPA racks, a simple shooter.
- `scenarios`: `list_scenarios()`, `run_scenario(name, seed)`.
- `runner`: the logic of ``railbird sim`` (`run_sim`, `write_truth`).
"""
