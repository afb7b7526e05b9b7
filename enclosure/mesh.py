"""CadQuery solid -> trimesh mesh (for watertightness, wall thickness and the renders)."""
import numpy as np
import trimesh


def to_trimesh(shape, tolerance=0.05, angular=0.2):
    verts, tris = shape.tessellate(tolerance, angular)
    v = np.array([(p.x, p.y, p.z) for p in verts], dtype=float)
    f = np.array(tris, dtype=np.int64)
    mesh = trimesh.Trimesh(vertices=v, faces=f, process=True)   # merges the faces' shared edges
    return mesh


def first_hits(mesh, origins, directions):
    """Distance along each ray to the first triangle hit (inf when none)."""
    idx_tri, idx_ray, locs = mesh.ray.intersects_id(origins, directions, multiple_hits=False,
                                                    return_locations=True)
    dist = np.full(len(origins), np.inf)
    if len(idx_ray):
        d = np.linalg.norm(locs - origins[idx_ray], axis=1)
        dist[idx_ray] = d
    return dist


def wall_thickness_samples(mesh, n_random=4000, seed=1, eps=1e-3):
    """Thickness of material under sample points of the surface: a ray from each sample along the
    inward normal, distance to where it leaves the solid. Samples: every triangle centroid plus
    n_random area-weighted points (seeded). Exact for walls bounded by parallel or concentric
    faces (all of ours: boxes, cylinders, the drafted bowl shell with a square rim); at acute
    edges it would under-read, which the design avoids.
    Returns (points, thickness)."""
    rng = np.random.default_rng(seed)
    pts_c = mesh.triangles_center
    nrm_c = mesh.face_normals
    pts_r, face_r = trimesh.sample.sample_surface(mesh, n_random, seed=rng.integers(1 << 31))
    pts = np.vstack([pts_c, pts_r])
    nrm = np.vstack([nrm_c, mesh.face_normals[face_r]])
    origins = pts - nrm * eps
    dist = first_hits(mesh, origins, -nrm) + eps
    return pts, dist
