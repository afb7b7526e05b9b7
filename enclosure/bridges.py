"""Bridges of a part in its print pose: where the printer lays lines over air, and how far.

A face that looks down at the bed more steeply than OVERHANG_DEG from the vertical (and is not on
the bed) must be printed as a bridge: straight lines from one edge with material under it to an
opposite one. A slicer lays a bridge's lines all in one direction, so a region passes when some
direction gives every line through it two anchored ends no more than BRIDGE_LIMIT apart; a line
that ends at a free edge (the rim of a hole over the region) is a cantilever and droops.

Figures: overhangs up to 45 deg from the vertical print without support (the common FDM rule:
3D Orchard, "Intro to 3D printing and overhangs", learn.3dorchard.com/design-for-manufacturing/
intro-to-3d-printing-and-overhangs); bridges up to 20 mm sag 0-0.2 mm, under 5 mm not at all
(3D Orchard, "Designing gaps and bridges", learn.3dorchard.com/en/articles/984591: "<5mm no
quality loss, 5-20mm little quality loss (0-0.2 mm sag)", for average desktop FDM printers).
"""
import math

import numpy as np
import trimesh

OVERHANG_DEG = 45.0
BRIDGE_LIMIT = 20.0
STEP_DEG = 5.0          # the directions tried
SCAN = 0.25             # scanline spacing, mm
PROBE = 0.1             # how far beyond an edge (and below it) material is looked for


def down_regions(mesh, min_z=0.1):
    """[face indices] of each connected region facing down more steeply than the overhang limit."""
    n = mesh.face_normals
    limit = -math.sin(math.radians(OVERHANG_DEG)) - 1e-6
    sel = (n[:, 2] < limit) & (mesh.triangles_center[:, 2] > min_z)
    nodes = np.nonzero(sel)[0]
    adj = mesh.face_adjacency
    both = sel[adj[:, 0]] & sel[adj[:, 1]]
    return [np.asarray(g) for g in trimesh.graph.connected_components(adj[both], nodes=nodes)]


def _boundary(mesh, faces):
    """Boundary edges of a face region: [(p0, p1, anchored)], 2D points. Anchored: material just
    beyond the edge and just below it (a wall going down), not air (the rim of a hole)."""
    tri = mesh.faces[faces]
    edges = np.sort(np.stack([tri[:, [0, 1]], tri[:, [1, 2]], tri[:, [2, 0]]], axis=1).reshape(-1, 2), axis=1)
    owner = np.repeat(faces, 3)
    uniq, idx, counts = np.unique(edges, axis=0, return_index=True, return_counts=True)
    out, probes = [], []
    for (a, b), i in zip(uniq[counts == 1], idx[counts == 1]):
        p0, p1 = mesh.vertices[a], mesh.vertices[b]
        m = (p0 + p1) / 2
        t = p1[:2] - p0[:2]
        out_dir = np.array([t[1], -t[0]]) / max(np.linalg.norm(t), 1e-12)
        if np.dot(m[:2] - mesh.triangles_center[owner[i]][:2], out_dir) < 0:
            out_dir = -out_dir
        probes.append([m[0] + out_dir[0] * PROBE, m[1] + out_dir[1] * PROBE, m[2] - PROBE])
        out.append((p0[:2], p1[:2]))
    inside = mesh.contains(np.array(probes)) if probes else []
    return [(p0, p1, bool(k)) for (p0, p1), k in zip(out, inside)]


def _worst_line(edges, angle):
    """Longest line of a bridge laid at angle (deg) over the region, or inf when a line ends free."""
    c, s = math.cos(math.radians(angle)), math.sin(math.radians(angle))
    rot = np.array([[c, s], [-s, c]])          # turns the direction onto x
    segs = [(rot @ p0, rot @ p1, k) for p0, p1, k in edges]
    ys = [y for a, b, _ in segs for y in (a[1], b[1])]
    worst = 0.0
    for y in np.arange(min(ys) + SCAN / 2, max(ys), SCAN):
        hits = []
        for a, b, k in segs:
            if (a[1] - y) * (b[1] - y) < 0:
                x = a[0] + (y - a[1]) * (b[0] - a[0]) / (b[1] - a[1])
                hits.append((x, k))
        hits.sort()
        for (x0, k0), (x1, k1) in zip(hits[0::2], hits[1::2]):
            if not (k0 and k1):
                return math.inf
            worst = max(worst, x1 - x0)
    return worst


def spans(mesh):
    """[(z, best span)] of every bridge region: the longest line of the region's best direction
    (inf when every direction leaves a line with a free end)."""
    out = []
    for faces in down_regions(mesh):
        edges = _boundary(mesh, faces)
        best = float(min(_worst_line(edges, a) for a in np.arange(0.0, 180.0, STEP_DEG)))
        out.append((float(mesh.triangles_center[faces, 2].mean()), best))
    return out
