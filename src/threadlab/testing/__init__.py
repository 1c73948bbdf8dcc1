"""What a third party runs to check an extension against the contract the shipped ones pass:
`StoreContract`, the store contract as a pytest test class."""

from ._store_contract import StoreContract

__all__ = ["StoreContract"]
