"""Headless PNG previews with matplotlib (Agg): a shaded assembly view and cross-sections."""
import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402
import numpy as np  # noqa: E402
from mpl_toolkits.mplot3d.art3d import Poly3DCollection  # noqa: E402

LIGHT = np.array([0.4, -0.6, 0.7]) / np.linalg.norm([0.4, -0.6, 0.7])


def _shade(mesh, rgb):
    lum = 0.35 + 0.65 * np.clip(mesh.face_normals @ LIGHT, 0, 1)
    return np.clip(np.outer(lum, rgb), 0, 1)


def view(items, path, elev=28, azim=-62, title=None, size=(8, 6), dpi=110):
    """items: [(trimesh, (r, g, b))]. Writes a PNG of the scene."""
    fig = plt.figure(figsize=size, dpi=dpi)
    ax = fig.add_subplot(111, projection="3d")
    lo = np.min([m.bounds[0] for m, _ in items], axis=0)
    hi = np.max([m.bounds[1] for m, _ in items], axis=0)
    # One collection: matplotlib depth-sorts polygons within a collection, but whole collections
    # against each other, so one per part would paint the base's floor over the eggs.
    tris = np.vstack([m.triangles for m, _ in items])
    cols = np.vstack([_shade(m, np.array(rgb)) for m, rgb in items])
    ax.add_collection3d(Poly3DCollection(tris, facecolors=cols, edgecolors=cols, linewidths=0.1))
    c = (lo + hi) / 2
    r = (hi - lo).max() / 2
    ax.set_xlim(c[0] - r, c[0] + r)
    ax.set_ylim(c[1] - r, c[1] + r)
    ax.set_zlim(c[2] - r * 0.6, c[2] + r * 0.6)
    ax.set_box_aspect((1, 1, 0.6))
    ax.view_init(elev=elev, azim=azim)
    ax.set_axis_off()
    if title:
        ax.set_title(title)
    fig.subplots_adjust(0, 0, 1, 0.95)
    fig.savefig(path)
    plt.close(fig)


def section(items, planes, path, dpi=110):
    """Cuts of CadQuery solids by vertical planes y = const, filled; one panel per plane.
    items: [(label, cq shape, (r, g, b))]; planes: [(y, caption)]."""
    import cadquery as cq
    from matplotlib.collections import PolyCollection
    from matplotlib.patches import Patch

    fig, axes = plt.subplots(len(planes), 1, figsize=(9, 3.4 * len(planes)), dpi=dpi)
    axes = np.atleast_1d(axes)
    for ax, (y, caption) in zip(axes, planes):
        handles = []
        for label, shape, rgb in items:
            plane = cq.Face.makePlane(2000, 2000, basePnt=cq.Vector(0, y, 0), dir=cq.Vector(0, 1, 0))
            cut = shape.intersect(plane)
            verts, tris = cut.tessellate(0.05, 0.1)
            if not tris:
                continue
            xz = np.array([(v.x, v.z) for v in verts])
            ax.add_collection(PolyCollection(xz[np.array(tris)], facecolors=rgb,
                                             edgecolors=rgb, linewidths=0.3))
            handles.append(Patch(color=rgb, label=label))
        ax.set_xlim(-125, 125)
        ax.set_ylim(-8, 100)
        ax.set_aspect("equal")
        ax.set_title(caption, fontsize=10)
        ax.set_xlabel("x [mm]")
        ax.set_ylabel("z [mm]")
        ax.grid(alpha=0.3)
        ax.legend(handles=handles, fontsize=7, loc="upper right", ncol=2)
    fig.tight_layout()
    fig.savefig(path)
    plt.close(fig)
