from fastapi import FastAPI

from app.routes import router

app = FastAPI(title="inventory")
app.include_router(router)


@app.get("/health")
def health() -> dict:
    return {"status": "ok"}
