"""wp.sim.parse_urdf / wp.sim.parse_mjcf: URDF and MuJoCo XML into a ModelBuilder, with Warp 1.9.1's
keyword names and defaults (engine/urdf_import.h, engine/mjcf_import.h; docs/import.md).

    builder = wp.sim.ModelBuilder()
    info = wp.sim.parse_mjcf("pendulum.xml", builder, stiffness=0.0, damping=0.0)
    info.body_start, info.body_end, info.joint_index["j1"], info.warnings

Every keyword Weft simulates is passed on; a keyword it does not simulate raises TypeError naming
it when given a value other than Warp's default (so that code passing the defaults ports as it is).
Each warning of the import (an unsupported element or attribute, a cylinder turned into a capsule,
...) is also issued through Python's warnings module. Errors are wp.sim.ModelImportError (a
ValueError) naming file:line and the element.
"""

import types as _types
import warnings as _warnings

from . import _weft
from ._sim_values import BuildError, _f32, _f32s, _transform_parts

ModelImportError = getattr(_weft, "ModelImportError", ValueError)

_NOT_SIMULATED_URDF = {"hide_visuals": False, "force_show_colliders": False, "collapse_fixed_joints": False}
_NOT_SIMULATED_MJCF = {"hide_visuals": False, "ignore_names": (), "ignore_classes": None, "visual_classes": ("visual",),
                       "collider_classes": ("collision",), "no_class_as_colliders": True, "force_show_colliders": False,
                       "collapse_fixed_joints": False}


def _refuse(call, given, defaults):
    for name, default in defaults.items():
        if name in given and given[name] != default and not (default == () and given[name] in ([], ())):
            raise TypeError(f"{call}() keyword {name}={given[name]!r} is not simulated by Weft (only Warp's default "
                            f"{default!r} is accepted); see docs/import.md")


def _run(call, fn, filename, builder, xform, base_joint, keywords):
    if not _weft.has_xml_import:
        raise RuntimeError(f"{call}: this build of Weft has no URDF/MJCF import (tinyxml2 was not found when it was built)")
    pos, rot = _transform_parts(call, xform)
    kw = {"pos": _f32s(call, "xform position", pos, 3), "rot": _f32s(call, "xform rotation", rot, 4)}
    if base_joint is not None:
        if not isinstance(base_joint, str):
            raise TypeError(f"{call}() keyword base_joint must be a string of axes ('px', 'py', 'pz', 'rx', 'ry', 'rz', "
                            f"separated by commas); "
                            f"a dict of joint parameters is not simulated by Weft")
        kw["base_joint"] = base_joint.strip().lower()
    for name, value in keywords.items():
        if isinstance(value, bool) or name == "up_axis":
            kw[name] = value
        else:
            kw[name] = _f32(call, name, value)
    cpp = getattr(builder, "_cpp", builder)
    try:
        r = fn(str(filename), cpp, kw)
    except BuildError:
        raise
    for w in r["warnings"]:
        _warnings.warn(w, stacklevel=3)
    return _types.SimpleNamespace(**r)


def parse_urdf(urdf_filename, builder, xform=None, floating=False, base_joint=None, density=1000.0, stiffness=100.0,
               damping=10.0, armature=0.0, contact_ke=1.0e4, contact_kd=1.0e3, contact_kf=1.0e2, contact_ka=0.0,
               contact_mu=0.25, contact_restitution=0.5, contact_thickness=0.0, limit_ke=100.0, limit_kd=10.0,
               joint_limit_lower=-1e6, joint_limit_upper=1e6, scale=1.0, parse_visuals_as_colliders=False,
               ignore_inertial_definitions=True, ensure_nonstatic_links=True, static_link_mass=1e-2,
               enable_self_collisions=True, **not_simulated):
    """Adds the links of a URDF file as bodies and its joints as the builder's joints (Warp's
    parse_urdf). Returns a namespace: body_start, body_end, joint_start, joint_end, shape_start,
    shape_end, body_index and joint_index (name -> index), warnings."""
    _check_unknown("parse_urdf", not_simulated, _NOT_SIMULATED_URDF)
    _refuse("parse_urdf", not_simulated, _NOT_SIMULATED_URDF)
    return _run("parse_urdf", _weft.parse_urdf if _weft.has_xml_import else None, urdf_filename, builder, xform, base_joint,
                dict(floating=bool(floating), density=density, stiffness=stiffness, damping=damping, armature=armature,
                     contact_ke=contact_ke, contact_kd=contact_kd, contact_kf=contact_kf, contact_ka=contact_ka,
                     contact_mu=contact_mu, contact_restitution=contact_restitution, contact_thickness=contact_thickness,
                     limit_ke=limit_ke, limit_kd=limit_kd, joint_limit_lower=joint_limit_lower,
                     joint_limit_upper=joint_limit_upper, scale=scale,
                     parse_visuals_as_colliders=bool(parse_visuals_as_colliders),
                     ignore_inertial_definitions=bool(ignore_inertial_definitions),
                     enable_self_collisions=bool(enable_self_collisions),
                     ensure_nonstatic_links=bool(ensure_nonstatic_links), static_link_mass=static_link_mass))


def parse_mjcf(mjcf_filename, builder, xform=None, floating=False, base_joint=None, density=1000.0, stiffness=100.0,
               damping=10.0, armature=0.0, armature_scale=1.0, contact_ke=1.0e4, contact_kd=1.0e3, contact_kf=1.0e2,
               contact_ka=0.0, contact_mu=0.25, contact_restitution=0.5, contact_thickness=0.0, limit_ke=100.0,
               limit_kd=10.0, joint_limit_lower=-1e6, joint_limit_upper=1e6, scale=1.0, parse_visuals_as_colliders=False,
               parse_meshes=True, up_axis="Z", ignore_inertial_definitions=True, ensure_nonstatic_links=True,
               static_link_mass=1e-2, verbose=False, enable_self_collisions=False, **not_simulated):
    """Adds the bodies, joints, geoms and actuators of a MuJoCo XML file to the builder (Warp's
    parse_mjcf; actuators become joint drives and <option gravity> sets builder.gravity, which
    Warp's does not do). Returns a namespace as parse_urdf's, plus actuators (one dict each) and
    timestep (<option timestep>, 0 if absent). verbose=True prints the warnings as well."""
    _check_unknown("parse_mjcf", not_simulated, _NOT_SIMULATED_MJCF)
    _refuse("parse_mjcf", not_simulated, _NOT_SIMULATED_MJCF)
    if not isinstance(up_axis, str) or up_axis.upper() not in ("X", "Y", "Z"):
        up_axis = {0: "X", 1: "Y", 2: "Z"}.get(up_axis) if isinstance(up_axis, int) else None
        if up_axis is None:
            raise ValueError("parse_mjcf: up_axis must be 'X', 'Y' or 'Z' (or 0, 1, 2)")
    r = _run("parse_mjcf", _weft.parse_mjcf if _weft.has_xml_import else None, mjcf_filename, builder, xform, base_joint,
             dict(floating=bool(floating), density=density, stiffness=stiffness, damping=damping, armature=armature,
                  armature_scale=armature_scale, contact_ke=contact_ke, contact_kd=contact_kd, contact_kf=contact_kf,
                  contact_ka=contact_ka, contact_mu=contact_mu, contact_restitution=contact_restitution,
                  contact_thickness=contact_thickness, limit_ke=limit_ke, limit_kd=limit_kd,
                  joint_limit_lower=joint_limit_lower, joint_limit_upper=joint_limit_upper, scale=scale,
                  parse_visuals_as_colliders=bool(parse_visuals_as_colliders), parse_meshes=bool(parse_meshes),
                  up_axis=up_axis.upper(), ignore_inertial_definitions=bool(ignore_inertial_definitions),
                  enable_self_collisions=bool(enable_self_collisions),
                  ensure_nonstatic_links=bool(ensure_nonstatic_links), static_link_mass=static_link_mass))
    if verbose:
        for w in r.warnings:
            print(w)
    return r


def _check_unknown(call, given, known):
    import difflib
    import inspect
    fn = parse_urdf if call == "parse_urdf" else parse_mjcf
    names = [p for p in inspect.signature(fn).parameters if p != "not_simulated"] + list(known)
    for name in given:
        if name not in known:
            near = difflib.get_close_matches(name, names, n=1)
            hint = f" (did you mean '{near[0]}'?)" if near else ""
            raise TypeError(f"{call}() got an unexpected keyword argument '{name}'{hint}")
