/** The in-memory task store keeps the store contract. */
import { after, describe } from 'node:test';
import { MemoryTaskStore } from '../../lib/tasks/memory-task-store.js';
import { storeContract } from './task-store-contract.js';

describe('MemoryTaskStore', () => {
  const stores: MemoryTaskStore[] = [];
  after(() => Promise.all(stores.map((store) => store.close())));
  storeContract(() => {
    const store = new MemoryTaskStore();
    stores.push(store);
    return { store };
  });
});
