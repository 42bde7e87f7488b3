//! [`MemoryStorage`]: a run's objects in memory, for tests and tools.

use std::collections::BTreeMap;
use std::sync::Mutex;

use super::{validate_key, validate_prefix, Storage, StorageError};

/// A [`Storage`] held in memory (for tests and tools); same key rules as [`LocalStorage`].
#[derive(Debug, Default)]
pub struct MemoryStorage {
    objects: Mutex<BTreeMap<String, Vec<u8>>>,
}

impl MemoryStorage {
    /// An empty store.
    pub fn new() -> Self {
        Self::default()
    }

    fn lock(&self) -> std::sync::MutexGuard<'_, BTreeMap<String, Vec<u8>>> {
        // A panic while holding the lock cannot leave the map half-updated.
        self.objects.lock().unwrap_or_else(|p| p.into_inner())
    }
}

impl Storage for MemoryStorage {
    fn put(&self, key: &str, bytes: &[u8]) -> Result<(), StorageError> {
        validate_key(key)?;
        self.lock().insert(key.to_string(), bytes.to_vec());
        Ok(())
    }

    fn put_if_absent(&self, key: &str, bytes: &[u8]) -> Result<bool, StorageError> {
        validate_key(key)?;
        match self.lock().entry(key.to_string()) {
            std::collections::btree_map::Entry::Occupied(_) => Ok(false),
            std::collections::btree_map::Entry::Vacant(v) => {
                v.insert(bytes.to_vec());
                Ok(true)
            }
        }
    }

    fn get(&self, key: &str) -> Result<Vec<u8>, StorageError> {
        validate_key(key)?;
        self.lock()
            .get(key)
            .cloned()
            .ok_or_else(|| StorageError::NotFound {
                key: key.to_string(),
            })
    }

    fn list(&self, prefix: &str) -> Result<Vec<String>, StorageError> {
        validate_prefix(prefix)?;
        Ok(self
            .lock()
            .range(prefix.to_string()..)
            .take_while(|(k, _)| k.starts_with(prefix))
            .map(|(k, _)| k.clone())
            .collect())
    }

    fn delete(&self, key: &str) -> Result<(), StorageError> {
        validate_key(key)?;
        self.lock().remove(key);
        Ok(())
    }

    fn exists(&self, key: &str) -> Result<bool, StorageError> {
        validate_key(key)?;
        Ok(self.lock().contains_key(key))
    }

    fn rename(&self, from: &str, to: &str) -> Result<(), StorageError> {
        validate_key(from)?;
        validate_key(to)?;
        let mut map = self.lock();
        let bytes = map.remove(from).ok_or_else(|| StorageError::NotFound {
            key: from.to_string(),
        })?;
        map.insert(to.to_string(), bytes);
        Ok(())
    }
}
