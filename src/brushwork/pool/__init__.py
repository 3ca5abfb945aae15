"""Pool: the person's taste as data (paintings with tiers), beside the scorer."""

from brushwork.pool.folder import TIERS, Pool, PoolItem, example_pool_dir, load_pool

__all__ = ["TIERS", "Pool", "PoolItem", "example_pool_dir", "load_pool"]
