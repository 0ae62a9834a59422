"""SynBench's fixed numbers and setting choices, shared by its modules (none of which imports another's
constants): the authors' grids (Ko 2024, §5.2.1, §5.2.4, eq. 5.4), the data and probing options, the reference
models."""

from __future__ import annotations

#: the authors' s grid, np.arange(0.1, 5.0, 0.1): 0.1 ... 4.9, 49 levels (Ko 2024, §5.2.1)
S_GRID: tuple[float, ...] = tuple(round(0.1 * i, 1) for i in range(1, 50))
#: ε grid of Table B.4 and a_T values reported in the thesis (Ko 2024, §5.2.4, Table B.4)
EPS_GRID: tuple[float, ...] = tuple(round(0.1 * i, 1) for i in range(9))
A_T_GRID: tuple[float, ...] = (0.7, 0.75, 0.8, 0.85, 0.9)
#: Gaussian-H band (a placeholder, not the authors': docs/synbench.md): Toeplitz entries at offsets 0..3
H_BAND: tuple[float, ...] = (1.0, 0.5, 0.25, 0.125)
EIG_CUTOFF = 1e-6  # absolute eigenvalue cut-off of the thin decomposition (the authors' code; docs/synbench.md)

# --- data (Ko 2024, §5.2.1, §5.3.4; docs/synbench.md) -----------------------------------------------------------------
COVARIANCES = ("identity", "heptadiagonal")  # Gaussian-I (default), Gaussian-H (Ko 2024, §5.3.4)
# μ̄ = 0.5·1_d (code, default), 0.5·1_d/√d (thesis Alg. 1), 0 (docs/synbench.md)
TRANSLATIONS = ("code", "thesis", "none")
IMAGENET_MEAN = (0.485, 0.456, 0.406)
IMAGENET_STD = (0.229, 0.224, 0.225)
BLOCK_ROWS = 32  # rows drawn from one seed; 32 × 3×224×224 float32 = 19 MB
FULL_SHAPE = (3, 224, 224)
FREE_SHAPE = "3x8x8"  # models without a native input size (identity, projections, callables), docs/synbench.md
NORMALIZE = ("auto", "imagenet", "none")

# --- probing and scoring (Ko 2024, §5.2.3-5.2.4; docs/synbench.md) ----------------------------------------------------
DENOMINATORS = ("n-2", "n-1")  # pooled covariance: the code's n1+n2−2, the thesis's n1+n2−1 (docs/synbench.md)
EPS_MODES = ("relative", "absolute")
INTEGRATIONS = ("exact", "grid100")
GRID_MIN_A_T = 0.6
GRID_POINTS = 100  # [code] xgrid = np.linspace(0.6, 1.0, 100)
MIN_N = 16

# --- models --------------------------------------------------------------------------------------------------
#: built-in representations that are references, not pretrained encoders
REFERENCE_MODELS = ("identity", "random-projection", "random-vit")
